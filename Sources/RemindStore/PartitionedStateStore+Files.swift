import Foundation
import RemindCore
import Synchronization

/// The files backend in parts: opening a divided state directory, its top lock, and what the
/// parts' recoveries found.
extension PartitionedStore where Part == FileStateStore {
    public struct Options: Sendable {
        public var directory: String
        public var parts: Int
        /// Each part's options but its directory (set per part).
        public var part: FileStateStore.Options

        public init(directory: String, parts: Int, part: FileStateStore.Options) {
            self.directory = directory
            self.parts = parts
            self.part = part
        }
    }

    /// Opens (creating if needed) every part of a divided state directory, each on a thread of
    /// its own: a part's recovery reads its snapshot and replays its log, and the parts' starts
    /// are independent. One daemon per state directory: the top's lock, besides each part's.
    public convenience init(
        options: Options, policy: ReminderPolicy, now: Date, notice: @escaping @Sendable (StoreNotice) -> Void
    ) throws(StoreError) {
        precondition(options.parts > 1, "one part is a FileStateStore")
        try FileIO.makeDirectories(options.directory)
        let lock = try StateLock(directory: options.directory)
        do {
            try PartLayout.check(options.directory, parts: options.parts)
        } catch {
            lock.release()
            throw error
        }
        let signals = StoreSignals(sinks: options.part.sinks)
        let opened = Mutex([Result<FileStateStore, StoreError>?](repeating: nil, count: options.parts))
        DispatchQueue.concurrentPerform(iterations: options.parts) { index in
            var part = options.part
            part.directory = options.directory + "/" + PartLayout.name(index, of: options.parts)
            part.signals = signals
            let result = Result { () throws(StoreError) in
                try FileStateStore(options: part, policy: policy, now: now, notice: notice)
            }
            opened.withLock { $0[index] = result }
        }
        let results = opened.withLock { $0.map { $0! } }
        let parts = results.compactMap { try? $0.get() }
        for case .failure(let error) in results {
            // Every part that did open gives its directory up again, whichever failed.
            for part in parts { part.abandon() }
            lock.release()
            throw error
        }
        self.init(
            parts: parts, daemonStartedAt: now, signals: signals,
            directory: options.directory,
            release: { lock.release() })
    }

    /// What the parts' recoveries found, added up.
    public var summary: OpenSummary {
        parts.map(\.summary).reduce(OpenSummary(users: 0, fromSnapshot: true, replayedEntries: 0, pendingEvents: 0)) {
            OpenSummary(
                users: $0.users + $1.users, fromSnapshot: $0.fromSnapshot && $1.fromSnapshot,
                replayedEntries: $0.replayedEntries + $1.replayedEntries,
                pendingEvents: $0.pendingEvents + $1.pendingEvents)
        }
    }

    /// The top directory (a divided state directory always has one).
    var topDirectory: String { directory! }

    /// The path of a user's file, for tests and support.
    public func userFilePath(_ userID: UserID) -> String { part(of: userID).userFilePath(userID) }

    /// Gives every part up without a checkpoint (`FileStateStore.abandon`).
    public func abandon() {
        for part in parts { part.abandon() }
        releaseWhole()
    }
}
