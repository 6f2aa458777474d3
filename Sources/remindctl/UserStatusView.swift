import RemindAPI
import RemindClient
import RemindCore

/// A user's status for people: `remindctl user` and the answer to `remindctl report`.
struct UserStatusView {
    let status: UserStatus
    /// What `explain` says of the ask the user's next report would get (`remindctl user`).
    var nextAsk: String?

    func print(_ session: Session) {
        let terminal = session.terminal
        let time = session.time
        let permissions = status.permissions
        var table = Table()
        table.append(["user", status.userID.rawValue])
        table.append(["always access", status.alwaysAccess ? "yes" : "no"])
        table.append(["location", permissions.location.rawValue])
        table.append(["accuracy", permissions.accuracy.rawValue])
        table.append(["location services", permissions.locationServices ? "on" : "off"])
        table.append(["notifications", permissions.notifications.rawValue])
        table.append(["motion", permissions.motion.rawValue])
        table.append(["time zone", permissions.timeZone ?? "unknown"])
        table.append(["locale", status.locale ?? "unknown"])
        table.append(["observed", time.both(status.observedAt)])
        table.append(["errors", status.errors.isEmpty ? "none" : status.errors.map(\.rawValue).joined(separator: ", ")])
        if let episode = status.episode {
            let opening = episode.opening.map { " (\($0.rawValue))" } ?? ""
            table.append(["episode since", time.both(episode.startedAt) + opening])
            let heldOut = episode.remindersHeldOut > 0 ? ", \(episode.remindersHeldOut) held out" : ""
            table.append([
                "reminders",
                "\(episode.remindersDelivered) delivered, \(episode.remindersSuppressed) suppressed\(heldOut)",
            ])
            if episode.asks > 0 || episode.opened > 0 {
                table.append([
                    "in the app",
                    "\(episode.opened) reminder(s) opened; \(episode.asks) ask(s) given, \(episode.asksShown) shown, \(episode.asksAccepted) accepted",
                ])
            }
        } else {
            table.append(["episode", "none"])
        }
        table.append(["next reminder", time.both(status.nextReminderAt, otherwise: "none")])
        if let nextAsk { table.append(["next ask", nextAsk]) }
        table.append(["last reminder", time.both(status.lastReminderAt, otherwise: "never")])
        table.append(["reports", "\(status.reportCount), the last \(time.both(status.lastReportAt))"])
        table.append(["push", Self.push(status.push, time: time)])
        if let group = status.group {
            // The holdout gets no reminders by design (docs/outcomes.md): say so, or it looks broken.
            table.append(["group", group == "holdout" ? "holdout (no reminders are sent)" : group])
        }
        let alwaysAccess = status.alwaysAccess
        table.print(terminal) { row, column, text in
            guard column == 1 else { return terminal.style(text, .dim) }
            switch table.rows[row][0] {
            case "always access": return terminal.style(text, alwaysAccess ? .green : .red)
            case "errors" where !status.errors.isEmpty: return terminal.style(text, .red)
            case "push" where status.push?.reachable == false: return terminal.style(text, .red)
            default: return text
            }
        }
        printServices(terminal)
    }

    /// Each configured service's state, and for those not active what the user would fix:
    /// the server-side view of MOVE's `permissionMissing`.
    private func printServices(_ terminal: Terminal) {
        guard !status.services.isEmpty else { return }
        let services = status.services.sorted { $0.key < $1.key }
        terminal.line()
        var table = Table(header: ["SERVICE", "STATE", "MISSING"])
        for (name, service) in services {
            table.append([name, service.state.rawValue, service.missing.map(\.rawValue).joined(separator: ", ")])
        }
        table.print(terminal) { row, column, text in
            guard column == 1 else { return text }
            switch services[row].value.state {
            case .active: return terminal.style(text, .green)
            case .degraded: return text
            case .permissionMissing: return terminal.style(text, .red)
            }
        }
        let broken = ServiceCondition.allCases.filter { condition in
            services.contains { $0.value.state != .active && $0.value.missing.contains(condition) }
        }
        guard !broken.isEmpty else { return }
        terminal.line()
        terminal.line("To fix:")
        for condition in broken {
            let names = services.filter { $0.value.missing.contains(condition) }.map(\.key).joined(separator: ", ")
            terminal.line("  \(condition.rawValue) (\(names)): \(condition.fix)")
        }
    }

    /// `apns (production) …1a2b3c4d, reachable` or why not; never the whole token.
    static func push(_ push: UserStatus.Push?, time: TimeText) -> String {
        guard let push else { return "none (push sinks skip this user)" }
        let environment = push.environment.map { " (\($0.rawValue))" } ?? ""
        let address = "\(push.service.rawValue)\(environment) …\(push.tokenSuffix)"
        guard !push.reachable else { return "\(address), reachable" }
        let since = push.unreachableSince.map { " since \(time.both($0))" } ?? ""
        return "\(address), unreachable: \(push.unreachableReason ?? "dead token")\(since)"
    }
}
