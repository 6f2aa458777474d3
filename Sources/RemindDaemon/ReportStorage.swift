import Foundation
import RemindAPI
import RemindCore
import RemindStore

/// Where a report that is not a repeat goes: the store's transaction, with the user's repeats
/// the ``RepeatCache`` answered folded in first, and the status it leaves rendered once — the
/// answer, and what answers the user's next repeats.
struct ReportStorage: Sendable {
    /// A stored report: what the policy decided, and the encoded answer: the user's status
    /// with the ask (`ReportAnswerBody`; nil when the stored user has no status).
    struct Stored: Sendable {
        var outcome: ReportOutcome
        var answer: [UInt8]?

        init(outcome: ReportOutcome, status: [UInt8]?, policy: ReminderPolicy) {
            self.outcome = outcome
            answer = status.map { status in
                ReportAnswerBody.bytes(
                    status: status, ask: outcome.ask.map { AskAnswer($0, of: outcome.record, policy: policy) })
            }
        }
    }

    let store: any UserStore
    /// The answers to repeats; nil over a shared store.
    let repeats: RepeatCache?

    /// Stores a decoded report; throws what the store throws (a failed write changes nothing).
    func store(_ report: PermissionReport, for userID: UserID, receivedAt: Date) async throws -> Stored {
        let taken = repeats?.begin(userID)
        let stored: StoredReport
        do {
            stored = try await store.storeReport(report, for: userID, receivedAt: receivedAt, after: taken?.repeats)
        } catch {
            repeats?.fail(userID, restoring: taken)
            throw error
        }
        let (record, policy) = (stored.outcome.record, Self.policy(of: stored))
        let status =
            if let repeats { repeats.end(userID, record: record, policy: policy) } else {
                self.status(record, policy: policy)
            }
        return Stored(outcome: stored.outcome, status: status, policy: policy)
    }

    /// Stores a batch of decoded reports (`storeReports`: one batch of the store, durable
    /// before it returns), one result per report, in order. Throws what the store throws when
    /// storage failed.
    func store(
        batch reports: [(report: PermissionReport, userID: UserID)], receivedAt: Date
    ) async throws -> [Result<Stored, any Error>] {
        // Each user's repeats answered from memory go into their first change.
        var users: [UserID] = []
        var taken: [UserID: LoggedRepeats] = [:]
        if let repeats {
            var seen = Set<UserID>()
            for (_, userID) in reports where seen.insert(userID).inserted {
                users.append(userID)
                taken[userID] = repeats.begin(userID)
            }
        }
        let results: [Result<StoredReport, any Error>]
        do {
            results = try await store.storeReports(reports, receivedAt: receivedAt, after: taken.mapValues(\.repeats))
        } catch {
            for userID in users { repeats?.fail(userID, restoring: taken[userID]) }
            throw error
        }
        // A user's status answers their repeats from their last change in the batch.
        var (first, last): ([UserID: Int], [UserID: Int]) = ([:], [:])
        for (index, report) in reports.enumerated() {
            if first[report.userID] == nil { first[report.userID] = index }
            last[report.userID] = index
        }
        var answers: [Result<Stored, any Error>] = []
        answers.reserveCapacity(results.count)
        var ended = Set<UserID>()
        var refusedFirst = Set<UserID>()
        for (index, (result, report)) in zip(results, reports).enumerated() {
            let userID = report.userID
            switch result {
            case .success(let stored):
                let (record, policy) = (stored.outcome.record, Self.policy(of: stored))
                let status: [UInt8]?
                if let repeats, last[userID] == index {
                    ended.insert(userID)
                    status = repeats.end(userID, record: record, policy: policy)
                } else {
                    status = self.status(record, policy: policy)
                }
                answers.append(.success(Stored(outcome: stored.outcome, status: status, policy: policy)))
            case .failure(let error):
                // The repeats went into the user's first change: given back if it was refused.
                if first[userID] == index { refusedFirst.insert(userID) }
                answers.append(.failure(error))
            }
        }
        // A user whose last change the store refused: what their earlier ones stored is not
        // what a row would say.
        for userID in users where !ended.contains(userID) {
            repeats?.fail(userID, restoring: refusedFirst.contains(userID) ? taken[userID] : nil)
            repeats?.invalidate(CollectionOfOne(userID))
        }
        return answers
    }

    /// The policy a stored report ran under, which `storeReport` and `storeReports` note.
    private static func policy(of stored: StoredReport) -> ReminderPolicy {
        guard let policy = stored.policy else { preconditionFailure("storeReport notes the policy") }
        return policy
    }

    /// The user's status as the API answers it.
    private func status(_ record: UserRecord, policy: ReminderPolicy) -> [UInt8]? {
        UserStatus(record: record, policy: policy, daemonStartedAt: store.daemonStartedAt)?.jsonBytes
    }
}
