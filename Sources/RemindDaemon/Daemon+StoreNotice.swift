import Logging
import RemindStore
import Systemd

extension Daemon {
    static func logStoreNotice(_ notice: StoreNotice, logger: Logger) {
        switch notice {
        case .quarantined(let path, let movedTo, let reason):
            logger.error(
                "unreadable user file \(path) moved to \(movedTo): \(reason)",
                metadata: [MessageID.metadataKey: MessageID.fileQuarantined.metadataValue])
        case .clearedTemporaryFiles(let count):
            logger.notice("removed \(count) temp file(s) left by an interrupted write")
        case .cutTornLogTail(let bytes):
            logger.warning("cut \(bytes) bytes of an unacknowledged, torn write off the log")
        case .scannedAllFiles(let users):
            logger.notice("no snapshot: read every user file (\(users) users)")
        case .damagedFile(let path, let movedTo, let reason, let consequence):
            logger.error(
                "damaged state file \(path): \(reason); \(consequence); kept for inspection as \(movedTo)",
                metadata: [MessageID.metadataKey: MessageID.stateFileDamaged.metadataValue])
        case .checkpointFailed(let reason):
            logger.error("checkpoint failed: \(reason)")
        }
    }
}
