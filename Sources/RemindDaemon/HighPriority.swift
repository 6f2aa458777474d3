/// Runs `body` as a child task of high priority, so that on the store's actor its jobs go
/// before those of requests. Meant for reminders under a saturating report load (`make bench`
/// W5), where it made no measurable difference on its own. Cancellation reaches it as it would
/// `body` itself.
func withHighPriority(_ body: @escaping @Sendable () async -> Void) async {
    await withTaskGroup(of: Void.self) { group in
        group.addTask(priority: .high) { await body() }
    }
}
