import Foundation

/// A task executor with one thread of its own: the jobs of a task that prefers it
/// (`withTaskExecutorPreference`) run there, one after another, instead of on the cooperative pool.
///
/// The end-to-end tests wait synchronously (a child process's exit, a daemon's `READY=1`, a
/// socket's answer with a deadline). On the cooperative pool, which has one thread per core, two
/// such waits on a 2-core machine left no thread for any other test: hundreds of unit tests then
/// all finished together 30–40 s into the run, and tests with deadlines of their own failed.
/// A test on a thread of its own blocks only that thread (``OwnThreadTrait``).
public final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
    // `condition` guards `jobs` and `stopped`: the thread sleeps on it until there is work.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopped = false

    private let name: String
    private static let nameKey = "remindd.ThreadExecutor"

    /// The name of the executor whose thread calls this, or nil on any other thread.
    ///
    /// Read from the thread's dictionary: `Thread.name` is not the name given on Linux.
    public static var currentName: String? {
        Thread.current.threadDictionary[nameKey] as? String
    }

    public init(name: String) {
        self.name = name
        let thread = Thread { [self] in self.run() }
        thread.name = name
        thread.start()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Lets the thread end once it has run every job queued so far.
    ///
    /// For the end of the scope that preferred this executor: structured concurrency guarantees
    /// no task of that scope enqueues anything afterwards.
    public func shutdown() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        Thread.current.threadDictionary[Self.nameKey] = name
        while true {
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let batch = jobs
            jobs = []
            condition.unlock()
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }
}
