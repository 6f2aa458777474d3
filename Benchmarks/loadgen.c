// loadgen: HTTP/1.1 keep-alive load over a Unix socket, for remindd's benchmarks (`make bench`).
//
//   loadgen run SOCKET CONNECTIONS SECONDS USERS CHANGE_PERCENT [PREFIX [BASE]]
//   loadgen SOCKET CONNECTIONS SECONDS USERS CHANGE_PERCENT          (the same, older form)
//   loadgen seed SOCKET CONNECTIONS USERS [PREFIX [BASE]]
//   loadgen schedule SOCKET CONNECTIONS USERS FIRST_DUE_MS SPREAD_MS DELAY_S PREFIX
//   loadgen watch FILE COUNT TIMEOUT_S [PREFIX]
//   loadgen bulk SOCKET CONNECTIONS SECONDS USERS BATCH [PREFIX [BASE]]
//
// run: each connection posts reports to /v1/users/<PREFIX><N>/reports for the users it owns
// (N % CONNECTIONS == connection), so it knows each user's current state. CHANGE_PERCENT of the
// reports change it (location flips between BASE and the other of whileInUse/always: a change,
// which must be durable before the reply); the rest repeat it exactly. Users must have been
// seeded with BASE first. Any 2xx answer counts (nginx's 204 floor too).
// seed: posts BASE (default whileInUse) once for every user, so they exist in a known state.
// schedule: posts whileInUse for USERS users with observedAt chosen so that, with a trigger
// delay of DELAY_S, user i's reminder is due at FIRST_DUE_MS + i * SPREAD_MS / USERS (Unix ms).
// watch: follows a file sink (inotify) and, for each reminder line, subtracts its dueAt from
// the wall-clock time the line appeared (only users whose ID starts with PREFIX); stops after
// COUNT reminders or TIMEOUT_S seconds, and prints p50/p99/max/min lateness in ms.
//
// bulk: each connection posts batches of BATCH NDJSON lines to /v1/reports, each line a change
// (the location flips) of the next of the users it owns, as `run` with CHANGE_PERCENT 100 does
// one at a time. A line counts when its answer line says status 200; `rate` is lines per
// second, `requests` the lines, and the latencies are each batch's.
//
// Prints one line of `key value` pairs: requests, errors, rate (per s), p50, p99, max (ms).
// C, not Python: the client must not be the bottleneck.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

enum mode { RUN, SEED, SCHEDULE, BULK };

static enum mode mode;
static const char *socket_path, *prefix = "u", *base = "whileInUse";
static int connections, seconds, users, change_percent, delay_seconds, batch;
static long long first_due_ms, spread_ms;
static volatile int stop;

typedef struct {
    int id;
    long done, errors, lines;
    double *latencies;
    long capacity;
} worker_t;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long long wall_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
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

static void format_time(long long ms, char *out, size_t size) {
    time_t seconds = ms / 1000;
    struct tm tm;
    gmtime_r(&seconds, &tm);
    size_t n = strftime(out, size, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + n, size - n, ".%03lldZ", ms % 1000);
}

static const char *other(const char *location) {
    return strcmp(location, "always") == 0 ? "whileInUse" : "always";
}

// Sends one report; returns 0 on a 2xx answer.
static int post(int *fd, worker_t *worker, long user, const char *location, const char *observed) {
    char request[640], response[8192], body[256];
    int body_length;
    if (observed)
        body_length = snprintf(body, sizeof(body),
                               "{\"location\":\"%s\",\"notifications\":\"authorized\",\"observedAt\":\"%s\"}",
                               location, observed);
    else
        body_length =
            snprintf(body, sizeof(body), "{\"location\":\"%s\",\"notifications\":\"authorized\"}", location);
    int length = snprintf(request, sizeof(request),
                          "POST /v1/users/%s%ld/reports HTTP/1.1\r\nHost: localhost\r\n"
                          "Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
                          prefix, user, body_length, body);
    double started = now();
    int status = -1;
    if (send(*fd, request, length, MSG_NOSIGNAL) == length) status = read_response(*fd, response, sizeof(response));
    if (status < 200 || status > 299) {
        worker->errors++;
        close(*fd);
        *fd = connect_socket();
        return -1;
    }
    if (worker->done == worker->capacity) {
        worker->capacity *= 2;
        worker->latencies = realloc(worker->latencies, worker->capacity * sizeof(double));
    }
    worker->latencies[worker->done++] = now() - started;
    return 0;
}

// Reads one response of any size into *buffer (grown as needed); returns the status or -1
// and sets *body to the start of the body.
static int read_large_response(int fd, char **buffer, size_t *capacity, char **body, long *body_length) {
    size_t used = 0;
    for (;;) {
        if (used + 65536 + 1 > *capacity) {
            *capacity = (*capacity + 65536) * 2;
            *buffer = realloc(*buffer, *capacity);
        }
        ssize_t n = recv(fd, *buffer + used, *capacity - used - 1, 0);
        if (n <= 0) return -1;
        used += n;
        (*buffer)[used] = 0;
        char *end = strstr(*buffer, "\r\n\r\n");
        if (!end) continue;
        char *length = strcasestr(*buffer, "content-length:");
        long expected = length ? atol(length + 15) : 0;
        if ((long)(used - (end + 4 - *buffer)) >= expected) {
            *body = end + 4;
            *body_length = expected;
            return atoi(*buffer + 9);
        }
    }
}

// Counts the answer lines that say the line was stored.
static long count_stored(const char *body, long length) {
    long stored = 0;
    const char *cursor = body, *limit = body + length;
    while (cursor < limit && (cursor = strstr(cursor, "\"status\":200"))) {
        stored++;
        cursor += 13;
    }
    return stored;
}

// bulk: batches of changes, each line flipping one owned user.
static void bulk(worker_t *worker, long owned) {
    int fd = connect_socket();
    unsigned char *changed = calloc(owned, 1);
    size_t line_room = 160;
    char *payload = malloc((size_t)batch * line_room + 1);
    size_t request_capacity = (size_t)batch * line_room + 512, response_capacity = 1 << 20;
    char *request = malloc(request_capacity);
    char *response = malloc(response_capacity);
    long next = 0;
    while (!stop) {
        size_t length = 0;
        for (int i = 0; i < batch; i++) {
            long k = next++ % owned;
            changed[k] ^= 1;
            length += snprintf(payload + length, line_room,
                               "{\"userID\":\"%s%ld\",\"location\":\"%s\",\"notifications\":\"authorized\"}\n",
                               prefix, worker->id + k * connections, changed[k] ? other(base) : base);
        }
        int head = snprintf(request, 512,
                            "POST /v1/reports HTTP/1.1\r\nHost: localhost\r\n"
                            "Content-Type: application/x-ndjson\r\nContent-Length: %zu\r\n\r\n",
                            length);
        memcpy(request + head, payload, length);
        double started = now();
        char *body = NULL;
        long body_length = 0;
        int status = -1;
        if (send(fd, request, head + length, MSG_NOSIGNAL) == (ssize_t)(head + length))
            status = read_large_response(fd, &response, &response_capacity, &body, &body_length);
        long stored = status == 200 ? count_stored(body, body_length) : 0;
        if (status < 0) {
            close(fd);
            fd = connect_socket();
        }
        worker->errors += batch - stored;
        if (worker->done == worker->capacity) {
            worker->capacity *= 2;
            worker->latencies = realloc(worker->latencies, worker->capacity * sizeof(double));
        }
        // One latency per batch; the lines stored are counted apart (`lines`).
        worker->latencies[worker->done++] = now() - started;
        worker->lines += stored;
    }
    close(fd);
    free(changed);
    free(payload);
    free(request);
    free(response);
}

static void *work(void *argument) {
    worker_t *worker = argument;
    if (mode == BULK) {
        long owned = users > worker->id ? (users - 1 - worker->id) / connections + 1 : 0;
        if (owned > 0) bulk(worker, owned);
        return NULL;
    }
    int fd = connect_socket();
    // The users this connection owns: id, id + connections, …
    long owned = users > worker->id ? (users - 1 - worker->id) / connections + 1 : 0;
    if (mode == SEED || mode == SCHEDULE) {
        for (long k = 0; k < owned; k++) {
            long user = worker->id + k * connections;
            char observed[40];
            if (mode == SCHEDULE)
                format_time(first_due_ms + user * spread_ms / users - delay_seconds * 1000LL, observed,
                            sizeof(observed));
            while (post(&fd, worker, user, mode == SEED ? base : "whileInUse", mode == SCHEDULE ? observed : NULL) != 0)
                if (worker->errors > 1000) break;
        }
        close(fd);
        return NULL;
    }
    if (owned == 0) return NULL;
    unsigned char *changed = calloc(owned, 1);  // 1 when the user is not in BASE
    unsigned seed = worker->id * 7919 + 1;
    while (!stop) {
        long k = rand_r(&seed) % owned;
        if ((int)(rand_r(&seed) % 100) < change_percent) changed[k] ^= 1;
        const char *location = changed[k] ? other(base) : base;
        post(&fd, worker, worker->id + k * connections, location, NULL);
    }
    close(fd);
    free(changed);
    return NULL;
}

static void print_latencies(long total, long errors, double elapsed, double *all) {
    qsort(all, total, sizeof(double), compare);
    printf("requests %ld errors %ld rate %.0f p50 %.3f p99 %.3f max %.3f\n", total, errors,
           elapsed > 0 ? total / elapsed : 0, total ? all[total / 2] * 1000 : 0,
           total ? all[(long)(total * 0.99)] * 1000 : 0, total ? all[total - 1] * 1000 : 0);
}

static int load(void) {
    pthread_t *threads = calloc(connections, sizeof(pthread_t));
    worker_t *workers = calloc(connections, sizeof(worker_t));
    double started = now();
    for (int i = 0; i < connections; i++) {
        workers[i] = (worker_t){.id = i, .capacity = 1 << 14};
        workers[i].latencies = malloc(workers[i].capacity * sizeof(double));
        pthread_create(&threads[i], NULL, work, &workers[i]);
    }
    if (mode == RUN || mode == BULK) {
        sleep(seconds);
        stop = 1;
    }
    long total = 0, errors = 0, lines = 0;
    for (int i = 0; i < connections; i++) {
        pthread_join(threads[i], NULL);
        total += workers[i].done;
        errors += workers[i].errors;
        lines += workers[i].lines;
    }
    double elapsed = now() - started;
    if (mode == BULK) {
        // The rate is of lines; the latencies are of batches.
        double *all = malloc((total + 1) * sizeof(double));
        long k = 0;
        for (int i = 0; i < connections; i++)
            for (long j = 0; j < workers[i].done; j++) all[k++] = workers[i].latencies[j];
        qsort(all, total, sizeof(double), compare);
        printf("requests %ld batches %ld errors %ld rate %.0f p50 %.3f p99 %.3f max %.3f\n", lines, total, errors,
               elapsed > 0 ? lines / elapsed : 0, total ? all[total / 2] * 1000 : 0,
               total ? all[(long)(total * 0.99)] * 1000 : 0, total ? all[total - 1] * 1000 : 0);
        return 0;
    }
    double *all = malloc((total + 1) * sizeof(double));
    long k = 0;
    for (int i = 0; i < connections; i++)
        for (long j = 0; j < workers[i].done; j++) all[k++] = workers[i].latencies[j];
    print_latencies(total, errors, elapsed, all);
    return errors > 0 && mode != RUN;
}

// "…Z" RFC 3339 with optional fraction → Unix ms; -1 when malformed.
static long long parse_time(const char *text) {
    struct tm tm = {0};
    const char *rest = strptime(text, "%Y-%m-%dT%H:%M:%S", &tm);
    if (!rest) return -1;
    long long ms = (long long)timegm(&tm) * 1000;
    if (*rest == '.') {
        int digits = 0, fraction = 0;
        for (rest++; *rest >= '0' && *rest <= '9'; rest++)
            if (digits < 3) fraction = fraction * 10 + (*rest - '0'), digits++;
        while (digits++ < 3) fraction *= 10;
        ms += fraction;
    }
    return ms;
}

static int watch(const char *path, long count, int timeout, const char *user_prefix) {
    char wanted[160];
    snprintf(wanted, sizeof(wanted), "\"userID\":\"%s", user_prefix);
    int file = open(path, O_RDONLY | O_CREAT, 0644);
    int notify = inotify_init1(IN_NONBLOCK);
    if (file < 0 || notify < 0 || inotify_add_watch(notify, path, IN_MODIFY) < 0) {
        perror(path);
        return 1;
    }
    double *late = malloc(count * sizeof(double));
    long seen = 0;
    size_t capacity = 1 << 20, used = 0;
    char *buffer = malloc(capacity + 1);
    double deadline = now() + timeout;
    while (seen < count && now() < deadline) {
        ssize_t n;
        while ((n = read(file, buffer + used, capacity - used)) > 0) {
            long long arrived = wall_ms();
            used += n;
            buffer[used] = 0;
            char *line = buffer, *newline;
            while ((newline = memchr(line, '\n', buffer + used - line))) {
                *newline = 0;
                char *due = strstr(line, "\"dueAt\":\"");
                if (strstr(line, "\"type\":\"reminder\"") && strstr(line, wanted) && due && seen < count)
                    late[seen++] = (double)(arrived - parse_time(due + 9));
                line = newline + 1;
            }
            used = buffer + used - line;
            memmove(buffer, line, used);
            if (used == capacity) used = 0;  // a line longer than 1 MiB: drop it
        }
        struct pollfd waiting = {.fd = notify, .events = POLLIN};
        if (poll(&waiting, 1, 100) > 0) {
            char events[4096];
            while (read(notify, events, sizeof(events)) > 0) {
            }
        }
    }
    qsort(late, seen, sizeof(double), compare);
    printf("reminders %ld p50 %.0f p99 %.0f max %.0f min %.0f\n", seen, seen ? late[seen / 2] : 0,
           seen ? late[(long)(seen * 0.99)] : 0, seen ? late[seen - 1] : 0, seen ? late[0] : 0);
    return seen < count;
}

static int usage(void) {
    fprintf(stderr,
            "usage: loadgen run SOCKET CONNECTIONS SECONDS USERS CHANGE_PERCENT [PREFIX [BASE]]\n"
            "       loadgen seed SOCKET CONNECTIONS USERS [PREFIX [BASE]]\n"
            "       loadgen schedule SOCKET CONNECTIONS USERS FIRST_DUE_MS SPREAD_MS DELAY_S PREFIX\n"
            "       loadgen watch FILE COUNT TIMEOUT_S [PREFIX]\n"
            "       loadgen bulk SOCKET CONNECTIONS SECONDS USERS BATCH [PREFIX [BASE]]\n");
    return 2;
}

int main(int argc, char **argv) {
    if (argc == 6 && strchr(argv[1], '/')) {  // the older form: loadgen SOCKET …
        argv[0] = "run";
        argv--;
        argc++;
    } else if (argc > 1) {
        argv++;
        argc--;
    }
    if (argc < 2) return usage();
    const char *command = argv[0];
    if (strcmp(command, "watch") == 0) {
        if (argc != 4 && argc != 5) return usage();
        return watch(argv[1], atol(argv[2]), atoi(argv[3]), argc == 5 ? argv[4] : "");
    }
    socket_path = argv[1];
    if (strcmp(command, "run") == 0 && argc >= 6 && argc <= 8) {
        mode = RUN;
        connections = atoi(argv[2]);
        seconds = atoi(argv[3]);
        users = atoi(argv[4]);
        change_percent = atoi(argv[5]);
        if (argc > 6) prefix = argv[6];
        if (argc > 7) base = argv[7];
    } else if (strcmp(command, "bulk") == 0 && argc >= 6 && argc <= 8) {
        mode = BULK;
        connections = atoi(argv[2]);
        seconds = atoi(argv[3]);
        users = atoi(argv[4]);
        batch = atoi(argv[5]);
        if (argc > 6) prefix = argv[6];
        if (argc > 7) base = argv[7];
        if (batch < 1) return usage();
    } else if (strcmp(command, "seed") == 0 && argc >= 4 && argc <= 6) {
        mode = SEED;
        connections = atoi(argv[2]);
        users = atoi(argv[3]);
        if (argc > 4) prefix = argv[4];
        if (argc > 5) base = argv[5];
    } else if (strcmp(command, "schedule") == 0 && argc == 8) {
        mode = SCHEDULE;
        connections = atoi(argv[2]);
        users = atoi(argv[3]);
        first_due_ms = atoll(argv[4]);
        spread_ms = atoll(argv[5]);
        delay_seconds = atoi(argv[6]);
        prefix = argv[7];
    } else {
        return usage();
    }
    if (connections < 1 || users < 1) return usage();
    return load();
}
