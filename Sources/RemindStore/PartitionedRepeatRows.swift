import Foundation
import RemindCore

/// The repeat rows of a `PartitionedStateStore`'s parts behind one `RepeatAnswering`: a
/// repeat goes to the rows of its user's part, on the calling thread, as with one part.
struct PartitionedRepeatRows: RepeatAnswering {
    let parts: [RepeatRows]

    func answerRepeat(_ report: PermissionReport, of userID: UserID, receivedAt: Date) -> [UInt8]? {
        parts[PartLayout.index(of: userID, parts: parts.count)].answerRepeat(
            report, of: userID, receivedAt: receivedAt)
    }
}
