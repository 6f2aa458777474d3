import ArgumentParser
import RemindAPI
import RemindClient
import RemindCore

/// `remindctl report ID --location …`: stores a report as the app's backend would send it.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Store a permission report for a user, as the app's backend would.",
        discussion: """
            Flags left out are not sent, so the daemon applies its defaults: full accuracy, \
            Location Services on, and the last known notifications, motion, time zone and locale.

            Examples:
              remindctl report u-42 --location whileInUse --notifications authorized
              remindctl report u-42 --location always
              remindctl report u-42 --location denied --services off
              remindctl report u-42 --location allowOnce --time-zone Europe/Berlin
              remindctl report u-42 --location always --accuracy reduced --motion denied --locale de-CH
            """)

    @OptionGroup(title: "Global Options")
    var options: GlobalOptions

    @OptionGroup var user: UserIDArgument
    var id: String { user.id }

    @Option(help: "The app's location authorization.")
    var location: LocationAuthorization

    @Option(help: "Precise (full) or approximate (reduced) location.")
    var accuracy: LocationAccuracy?

    @Option(help: "System-wide Location Services.")
    var services: OnOff?

    @Option(help: "The app's notification authorization.")
    var notifications: ReportedNotifications?

    @Option(help: "The app's Motion & Fitness (Android: Activity Recognition) authorization.")
    var motion: ReportedMotion?

    @Option(help: ArgumentHelp("The device's language, a BCP 47 tag such as de-CH.", valueName: "tag"))
    var locale: String?

    @Option(help: ArgumentHelp("When the device observed it (RFC 3339; default: now).", valueName: "time"))
    var observedAt: String?

    @Option(help: ArgumentHelp("The device's IANA time zone, e.g. Europe/Berlin.", valueName: "zone"))
    var timeZone: String?

    func validate() throws {
        if let observedAt, RFC3339.parse(observedAt) == nil {
            throw ValidationError("--observed-at \"\(observedAt)\" is not an RFC 3339 timestamp")
        }
        if let timeZone, !TimeZoneCache.isValid(timeZone) {
            throw ValidationError("--time-zone \"\(timeZone)\" is not an IANA time zone")
        }
        if let locale, !LocaleTag.isValid(locale) {
            throw ValidationError("--locale \"\(locale)\" is not a BCP 47 tag such as de-CH")
        }
    }

    var request: ReportRequest {
        ReportRequest(
            location: location, accuracy: accuracy, locationServices: services.map { $0 == .on },
            notifications: notifications?.authorization, observedAt: observedAt, timeZone: timeZone,
            motion: motion?.authorization, locale: locale)
    }

    func run() throws {
        let session = try options.session()
        let request = self.request
        guard let status = try session.call({ client throws(DaemonClientError) in try client.report(id, request) })
        else { return }
        session.terminal.line("Stored the report for \(status.userID).")
        session.terminal.line()
        UserStatusView(status: status).print(session)
    }
}
