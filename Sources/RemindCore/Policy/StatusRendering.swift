import Foundation

/// Renders a user's status the way the API answers it, for a backend that answers repeated
/// reports from memory (the files backend's repeat rows): the store keeps the rendered bytes
/// opaque and never learns the answer's format, which belongs to the API.
///
/// Implementation requirements: `template` is pure (the same record, policy and start give the
/// same bytes) and cheap enough to run once per changing report; it answers nil exactly when
/// the record has no status to show (no history yet).
public protocol StatusRendering: Sendable {
    func template(for record: UserRecord, policy: ReminderPolicy, daemonStartedAt: Date) -> (any StatusTemplating)?
}

/// A rendered status with the three values a repeated report moves left open.
///
/// Implementation requirements: `render` with the status's own values gives exactly `bytes`;
/// it runs under a lock on the repeat path, so it must not allocate more than the answer.
public protocol StatusTemplating: Sendable {
    /// The status as rendered for the record it was made from.
    var bytes: [UInt8] { get }
    /// The newest observation time the status shows.
    var observedAt: Date { get }
    /// The status with these three values.
    func render(observedAt: Date, reportCount: Int, lastReportAt: Date) -> [UInt8]
}
