// loadgen: HTTP/1.1 keep-alive load over a Unix socket, for remindd's ingest benchmark.
//
//   loadgen SOCKET CONNECTIONS SECONDS USERS CHANGE_PERCENT
//
// Each connection posts reports to /v1/users/u<N>/reports. CHANGE_PERCENT of them flip the
// user's location (a change, which must be durable before the reply); the rest repeat it.
// Prints requests/s and p50/p99 latency. C, not Python: the client must not be the bottleneck.
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static const char *socket_path;
static int seconds, users, change_percent;
static volatile int stop;

typedef struct {
    int id;
    long done, errors;
    double *latencies;
    long capacity;
} worker_t;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int connect_socket(void) {
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    strncpy(address.sun_path, socket_path, sizeof(address.sun_path) - 1);
    if (connect(fd, (struct sockaddr *)&address, sizeof(address)) != 0) {
        perror("connect");
        exit(1);
    }
    return fd;
}

// Reads one response (headers + Content-Length body); returns the status or -1.
static int read_response(int fd, char *buffer, size_t size) {
    size_t used = 0;
    for (;;) {
        ssize_t n = recv(fd, buffer + used, size - used - 1, 0);
        if (n <= 0) return -1;
        used += n;
        buffer[used] = 0;
        char *end = strstr(buffer, "\r\n\r\n");
        if (!end) continue;
        char *length = strcasestr(buffer, "content-length:");
        long body = length ? atol(length + 15) : 0;
        if ((long)(used - (end + 4 - buffer)) >= body) return atoi(buffer + 9);
    }
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void *run(void *argument) {
    worker_t *worker = argument;
    int fd = connect_socket();
    char request[512], response[8192];
    unsigned seed = worker->id * 7919 + 1;
    while (!stop) {
        int user = rand_r(&seed) % users;
        int change = (int)(rand_r(&seed) % 100) < change_percent;
        // A change flips between two states; a repeat sends the user's base state again.
        const char *location = change && (rand_r(&seed) & 1) ? "always" : "whileInUse";
        char body[128];
        int body_length = snprintf(body, sizeof(body), "{\"location\":\"%s\",\"notifications\":\"authorized\"}",
                                   change ? location : "whileInUse");
        int length = snprintf(request, sizeof(request),
                              "POST /v1/users/u%d/reports HTTP/1.1\r\nHost: localhost\r\n"
                              "Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
                              user, body_length, body);
        double started = now();
        if (send(fd, request, length, MSG_NOSIGNAL) != length || read_response(fd, response, sizeof(response)) != 200) {
            worker->errors++;
            close(fd);
            fd = connect_socket();
            continue;
        }
        if (worker->done == worker->capacity) {
            worker->capacity *= 2;
            worker->latencies = realloc(worker->latencies, worker->capacity * sizeof(double));
        }
        worker->latencies[worker->done++] = now() - started;
    }
    close(fd);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: loadgen SOCKET CONNECTIONS SECONDS USERS CHANGE_PERCENT\n");
        return 2;
    }
    socket_path = argv[1];
    int connections = atoi(argv[2]);
    seconds = atoi(argv[3]);
    users = atoi(argv[4]);
    change_percent = atoi(argv[5]);
    pthread_t threads[connections];
    worker_t workers[connections];
    double started = now();
    for (int i = 0; i < connections; i++) {
        workers[i] = (worker_t){.id = i, .capacity = 1 << 16};
        workers[i].latencies = malloc(workers[i].capacity * sizeof(double));
        pthread_create(&threads[i], NULL, run, &workers[i]);
    }
    sleep(seconds);
    stop = 1;
    long total = 0, errors = 0;
    for (int i = 0; i < connections; i++) {
        pthread_join(threads[i], NULL);
        total += workers[i].done;
        errors += workers[i].errors;
    }
    double elapsed = now() - started;
    double *all = malloc((total + 1) * sizeof(double));
    long k = 0;
    for (int i = 0; i < connections; i++)
        for (long j = 0; j < workers[i].done; j++) all[k++] = workers[i].latencies[j];
    qsort(all, total, sizeof(double), compare);
    printf("requests %ld errors %ld rate %.0f/s p50 %.2f ms p99 %.2f ms\n", total, errors, total / elapsed,
           total ? all[total / 2] * 1000 : 0, total ? all[(long)(total * 0.99)] * 1000 : 0);
    return 0;
}
