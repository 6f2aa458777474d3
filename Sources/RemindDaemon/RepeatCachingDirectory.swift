import Foundation
import RemindCore

/// The store as the push sinks see it (`PushDirectory`), telling the ``RepeatCache`` when a dead
/// token changes a user's record: their status shows the push address as unreachable from then.
struct RepeatCachingDirectory: PushDirectory {
    let store: any PushDirectory
    let repeats: RepeatCache?

    func pushAddress(for userID: UserID) async throws -> PushAddress? {
        try await store.pushAddress(for: userID)
    }

    func markUnreachable(_ userID: UserID, token: String, reason: String, at date: Date) async throws {
        guard let repeats else {
            return try await store.markUnreachable(userID, token: token, reason: reason, at: date)
        }
        try await repeats.changing(userID) {
            try await store.markUnreachable(userID, token: token, reason: reason, at: date)
        }
    }

    func reroute(_ reminder: SinkEvent.Reminder) async throws -> RerouteResult {
        guard let repeats else { return try await store.reroute(reminder) }
        return try await repeats.changing(reminder.userID) { try await store.reroute(reminder) }
    }
}
