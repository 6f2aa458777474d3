/// A sink's `role` (docs/fallback.md): `always`, every event as before fallback sinks existed,
/// or `fallback`, only the reminders no push sink can deliver, and their withdraws.
public enum SinkRole: String, Sendable, CaseIterable {
    case always
    case fallback
}
