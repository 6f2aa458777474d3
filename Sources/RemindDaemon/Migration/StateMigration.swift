import Foundation
import Logging
import RemindConfig
import RemindCore
import RemindStore

/// `remindd migrate --from-config A --to-config B` (docs/operations.md): copies the whole state
/// of A's storage into B's — every user document as it is, the pending events with their ids
/// and the sinks still waiting for them, the dead letters and the outcomes log — between any
/// two backends (files, files in parts, PostgreSQL).
///
/// Refused with nothing changed when a side is in use (a running daemon) or the target holds
/// state. While it copies, a marker in the target names the source and the last user copied;
/// every write is idempotent, so after an interruption `--resume` goes on from the marker and
/// the result is the one an uninterrupted run gives. The source is only read.
public struct StateMigration: Sendable {
    public struct Summary: Sendable, Equatable {
        public var users = 0
        public var events = 0
        public var deadLetters = 0
        public var outcomes = 0
    }

    /// What is being copied, for a progress display: the phase's noun, items done, and the
    /// total when known.
    public typealias Progress = @Sendable (_ phase: String, _ done: Int, _ total: Int?) -> Void

    let source: DaemonConfiguration
    let target: DaemonConfiguration
    let resume: Bool
    let logger: Logger
    let now: @Sendable () -> Date
    /// Users and events per page read and written.
    public var batch = 1_000
    /// Users between checkpoints of the target: its log and memory stay bounded.
    var checkpointEvery = 50_000

    public init(
        source: DaemonConfiguration, target: DaemonConfiguration, resume: Bool, logger: Logger,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.source = source
        self.target = target
        self.resume = resume
        self.logger = logger
        self.now = now
    }

    public func run(progress: Progress = { _, _, _ in }) async throws(MigrationError) -> Summary {
        try checkDistinct()
        let from = try await MigrationEndpoint.open(source, role: "source", mustExist: true, logger: logger, now: now())
        let to: MigrationEndpoint
        do {
            // The target is opened (and a new directory created) only for a source that can go.
            try await checkSource(from)
            to = try await MigrationEndpoint.open(target, role: "target", mustExist: false, logger: logger, now: now())
        } catch {
            await from.close(checkpoint: false)
            if let error = error as? MigrationError { throw error }
            throw MigrationError.failed("reading the source, \(from.place): \(error)")
        }
        var wrote = false
        do {
            let marker = try await prepare(from: from, to: to)
            wrote = true
            let summary = try await copy(from: from, to: to, marker: marker, progress: progress)
            await from.close(checkpoint: false)
            await to.close(checkpoint: true)
            return summary
        } catch {
            await from.close(checkpoint: false)
            // A refused target was not written: it stays as it was. One written to keeps what
            // it holds (durable in its log) for --resume.
            await to.close(checkpoint: wrote)
            if let error = error as? MigrationError { throw error }
            throw MigrationError.failed(
                "copying from \(from.place) to \(to.place) failed: \(error); run again with --resume")
        }
    }

    /// The same storage on both sides would copy a state onto itself.
    private func checkDistinct() throws(MigrationError) {
        switch (source.storage.type, target.storage.type) {
        case (.files, .files):
            let resolve = { (path: String) in
                URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
            }
            if resolve(source.stateDirectory) == resolve(target.stateDirectory) {
                throw .refused(
                    "the source and the target are the same state directory, \(source.stateDirectory): give the target another stateDirectory"
                )
            }
        case (.postgres, .postgres):
            let url = { (configuration: DaemonConfiguration) in try? configuration.storage.resolvedURL()?.description }
            if let a = url(source), a == url(target) {
                throw .refused("the source and the target are the same database, \(a)")
            }
        default:
            return
        }
    }

    /// Checks the source is a whole state whose events the target's configuration can deliver.
    private func checkSource(_ from: MigrationEndpoint) async throws {
        if try await from.store.migrationMarker() != nil {
            throw MigrationError.refused(
                "the source, \(from.place), holds an unfinished migration itself: finish that one first (remindd migrate --resume)"
            )
        }
        let sinks = target.sinks.map(\.name)
        let missing = try await sinksWaitedFor(in: from).subtracting(sinks).sorted()
        if !missing.isEmpty {
            throw MigrationError.refused(
                "events in the source wait for the sink(s) \(missing.joined(separator: ", ")), which the target's configuration does not have (sinks[].name)"
            )
        }
    }

    /// Checks the target may be written (empty, or an interrupted migration of this source with
    /// `--resume`); writes or returns the marker.
    private func prepare(from: MigrationEndpoint, to: MigrationEndpoint) async throws -> MigrationMarker {
        let sourceUsers = await from.store.statistics().users
        if let text = try await to.store.migrationMarker() {
            guard let marker = MigrationMarker(text: text) else {
                throw MigrationError.refused("the target, \(to.place), holds a migration marker remindd cannot read")
            }
            guard resume else {
                throw MigrationError.refused(
                    "the target, \(to.place), holds an unfinished migration from \(marker.source) (begun \(RFC3339.format(marker.startedAt))): run again with --resume"
                )
            }
            guard marker.source == from.place else {
                throw MigrationError.refused(
                    "the target, \(to.place), holds an unfinished migration from \(marker.source), not from \(from.place)"
                )
            }
            guard marker.sourceUsers == sourceUsers else {
                throw MigrationError.refused(
                    "the source, \(from.place), changed since the interrupted migration (\(marker.sourceUsers) users then, \(sourceUsers) now): empty the target and migrate again"
                )
            }
            return marker
        }
        if let held = try await to.contents() {
            throw MigrationError.refused(
                "the target, \(to.place), is not empty: it holds \(held). Migrate into an empty one")
        }
        let marker = MigrationMarker(source: from.place, startedAt: now(), sourceUsers: sourceUsers)
        try await to.store.setMigrationMarker(marker.text)
        return marker
    }

    /// The sinks pending events and dead letters belong to.
    private func sinksWaitedFor(in endpoint: MigrationEndpoint) async throws -> Set<String> {
        var sinks = Set(await endpoint.store.deadLetters().map(\.sink))
        for (sink, count) in await endpoint.store.statistics().outboxPending where count > 0 { sinks.insert(sink) }
        return sinks
    }

    private func copy(
        from: MigrationEndpoint, to: MigrationEndpoint, marker: MigrationMarker, progress: Progress
    ) async throws -> Summary {
        var summary = Summary()
        var marker = marker
        // Users, in ID order, after the last one a previous run copied.
        var copiedSinceCheckpoint = 0
        // Resumed: the users up to the marker's are there; counted, not copied again.
        var done = marker.usersCopied
        progress("users", done, marker.sourceUsers)
        var cursor = marker.usersThrough
        while true {
            let page = try await from.store.users(after: cursor, limit: batch)
            guard let last = page.last?.userID else { break }
            try await to.store.importUsers(page)
            done += page.count
            copiedSinceCheckpoint += page.count
            if copiedSinceCheckpoint >= checkpointEvery {
                try await to.store.checkpoint(snapshot: true)
                copiedSinceCheckpoint = 0
            }
            marker.usersThrough = last
            marker.usersCopied = done
            try await to.store.setMigrationMarker(marker.text)
            progress("users", done, max(marker.sourceUsers, done))
            cursor = last
            if page.count < batch { break }
        }
        summary.users = done
        // Events, in creation order: written again whole after an interruption (idempotent).
        let pendingTotal = await from.store.statistics().outboxPending.values.max() ?? 0
        var eventCursor: String?
        progress("events", 0, pendingTotal)
        repeat {
            let page = try await from.store.exportEvents(after: eventCursor, limit: batch)
            try await to.store.importEvents(page.items)
            summary.events += page.items.count
            progress("events", summary.events, max(pendingTotal, summary.events))
            eventCursor = page.next
        } while eventCursor != nil
        let letters = await from.store.deadLetters()
        for letter in letters { try await to.store.deadLetter(letter) }
        summary.deadLetters = letters.count
        var outcomeCursor: String?
        progress("outcomes", 0, nil)
        repeat {
            let page = try await from.store.exportOutcomes(after: outcomeCursor, limit: batch * 5)
            try await to.store.importOutcomes(page.items)
            summary.outcomes += page.items.count
            progress("outcomes", summary.outcomes, nil)
            outcomeCursor = page.next
        } while outcomeCursor != nil
        try await to.store.checkpoint(snapshot: true)
        try await to.store.setMigrationMarker(nil)
        return summary
    }
}
