import Logging

/// The fixed journald `MESSAGE_ID` of each kind of event remindd logs.
///
/// One 128-bit id per event kind lets operators find every occurrence with `journalctl MESSAGE_ID=…` whatever the
/// wording of the message, and lets `journalctl -x` show the explanation from `systemd/remindd.catalog`, which
/// has one entry per case. The ids were generated once with `systemd-id128 new`; never change or reuse one.
///
/// Log one with `logger.info("…", metadata: [MessageID.metadataKey: MessageID.started.metadataValue])`.
public enum MessageID: String, Sendable, CaseIterable {
    case reminderDelivered = "35c7d3e0f63046b6a9360714b9b81c33"
    case reminderSuppressed = "4b6a6ea12f2a472c8cca3fe8d42ff818"
    case reminderWithdrawn = "5346a52d8a824707ac357f3f86579c6d"
    case deliveryFailed = "eb9a832d1a7a42268296fa5b2df066ef"
    case deadLettered = "6275bdf2c06c4b809d69450bc18be357"
    case episodeOpened = "08a818ca40384582a97c8f8d9339a7cd"
    case episodeClosed = "0b2409c777c44c88a41c7241fbd42db5"
    case fileQuarantined = "1d605a0bfcca4e119fca2adeaf3660c7"
    case stateFileDamaged = "54f12108c3e3447e8e1d4a2746e47da2"
    case configurationReloaded = "aad29b71605a4cc88008d87737bf4262"
    case configurationRejected = "b66c21f084614c699be48cac4d652a41"
    case started = "122619d5aa724ea09041c05463337af8"
    case stopping = "1b40936fe13044fabd3ebaaa688af1b7"
    case heartbeatSent = "3e36632d3c31487ab49fd00bf9b79c1e"
    case logMessagesDropped = "5356d4f19b304d91b7fabe3f3bb4700a"

    /// The metadata key whose value ``JournalLogHandler`` writes as the journald `MESSAGE_ID` field.
    public static let metadataKey = "MESSAGE_ID"

    /// The id as a swift-log metadata value.
    public var metadataValue: Logger.Metadata.Value {
        .string(self.rawValue)
    }
}
