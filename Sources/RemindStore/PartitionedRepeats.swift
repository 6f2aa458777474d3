import Foundation
import RemindCore

/// The repeat desks of a `PartitionedStateStore`'s parts behind one `RepeatAnswering`: a
/// repeat goes to the desk of its user's part, on the calling thread, as with one part.
struct PartitionedRepeats: RepeatAnswering {
    let desks: [RepeatDesk]

    func answerRepeat(_ report: PermissionReport, of userID: UserID, receivedAt: Date) -> [UInt8]? {
        desks[PartLayout.index(of: userID, parts: desks.count)].answerRepeat(
            report, of: userID, receivedAt: receivedAt)
    }
}
