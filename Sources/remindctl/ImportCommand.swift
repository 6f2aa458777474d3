import ArgumentParser
import Foundation
import RemindAPI
import RemindClient
import RemindCore

/// `remindctl import FILE|-`: sends an NDJSON file of reports (one a line, each with its
/// `userID`) to `POST /v1/reports` in batches, and lists the lines remindd refused.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Store many reports from an NDJSON file, one report with its userID a line.",
        discussion: """
            Each line is a report as POST /v1/users/{userID}/reports takes it, plus "userID"; \
            blank lines are skipped. Lines are sent in batches of --batch lines; a user's lines \
            are applied in the file's order. Each batch is answered once it is durable. On a \
            terminal a progress bar shows on standard error. At the end the refused lines are \
            listed with their line numbers and reasons (--json: {"accepted":N,"refused":[{"line",\
            "userID","detail"}]}).

            Exit codes: 0 every line was stored, 1 some were refused (or remindd refused a whole \
            batch: what was sent before it is stored), 2 usage, 3 remindd unreachable.

            Examples:
              remindctl import reports.ndjson
              producer | remindctl import --batch 5000 -
              remindctl --json import reports.ndjson
            """)

    @OptionGroup(title: "Global Options")
    var options: GlobalOptions

    @Argument(help: ArgumentHelp("The NDJSON file, or - for standard input.", valueName: "file"), completion: .file())
    var file: String

    @Option(help: ArgumentHelp("Lines per request (1–10000).", valueName: "n"))
    var batch = 1_000

    func validate() throws {
        guard (1...APIPaths.maximumBulkLines).contains(batch) else {
            throw ValidationError("--batch must be from 1 to \(APIPaths.maximumBulkLines), not \(batch)")
        }
    }

    func run() throws {
        let session = try options.session()
        var input: InputLines
        do {
            input = try InputLines(path: file)
        } catch {
            Terminal.error("\(error)")
            throw ExitCode.daemonFailure
        }
        var importer = Importer(client: session.client, batchSize: batch)
        let progress = ProgressMeter(noun: "lines", total: nil)
        let failure: DaemonClientError?
        do {
            failure = try importer.run(&input) { done, fraction in
                progress.advance(by: done - progress.done, fraction: fraction)
            }
        } catch {
            progress.finish()
            Terminal.error("\(error)")
            throw ExitCode.daemonFailure
        }
        let summary = importer.summary
        // Draws the last figures, however soon after the one before: the rate over the whole run.
        progress.finish()
        if session.json {
            session.terminal.line(summary.json)
        } else {
            summary.print(session.terminal)
        }
        if let failure {
            Terminal.error(
                Session.message(for: failure)
                    + "\nstopped before line \(importer.stoppedAt ?? 0): that batch and the lines after it were not stored"
            )
            throw Session.exitCode(for: failure)
        }
        if !summary.refused.isEmpty { throw ExitCode.daemonFailure }
    }
}

/// Sends the input's lines in batches and collects what remindd answered for each, with the
/// lines' numbers in the input rather than in their batch.
struct Importer {
    let client: DaemonClient
    let batchSize: Int
    private(set) var summary = ImportSummary()
    /// The input line the batch a failure stopped at began with.
    private(set) var stoppedAt: Int?

    init(client: DaemonClient, batchSize: Int) {
        self.client = client
        self.batchSize = batchSize
    }

    /// Sends everything; returns the error that stopped it (nothing after it was sent), or
    /// nil when every batch was answered. Throws when the input cannot be read.
    /// `progress` gets the lines sent and, for a file, the part of it read.
    mutating func run(_ input: inout InputLines, progress: (Int, Double?) -> Void) throws -> DaemonClientError? {
        var body: [UInt8] = []
        var numbers: [Int] = []
        var done = 0
        // Sends the batch gathered; the failure that stops the import, if any.
        func flush(_ importer: inout Importer, _ input: InputLines) -> DaemonClientError? {
            if let failure = importer.send(body, numbers: numbers) {
                importer.stoppedAt = numbers[0]
                return failure
            }
            done += numbers.count
            progress(done, input.size.map { Double(input.bytesRead) / Double(max($0, 1)) })
            body.removeAll(keepingCapacity: true)
            numbers.removeAll(keepingCapacity: true)
            return nil
        }
        while let line = try input.next() {
            // A batch goes when full, or when this line would take it over the size limit.
            if !numbers.isEmpty,
                numbers.count == batchSize || body.count + line.bytes.count + 1 > APIPaths.maximumBulkBodySize,
                let failure = flush(&self, input)
            {
                return failure
            }
            body += line.bytes
            body.append(UInt8(ascii: "\n"))
            numbers.append(line.number)
        }
        return numbers.isEmpty ? nil : flush(&self, input)
    }

    private mutating func send(_ body: [UInt8], numbers: [Int]) -> DaemonClientError? {
        let answers: [BulkReportAnswer]
        do {
            answers = try client.reportBatch(body).value
        } catch {
            return error
        }
        for answer in answers {
            let number = numbers.indices.contains(answer.line - 1) ? numbers[answer.line - 1] : answer.line
            if answer.status == 200 {
                summary.accepted += 1
            } else {
                summary.refused.append(
                    .init(
                        line: number, userID: answer.userID,
                        detail: answer.problem?.detail ?? "refused with status \(answer.status)"))
            }
        }
        return nil
    }
}

/// What an import did: how many lines were stored, and which were refused and why.
struct ImportSummary {
    struct Refused {
        var line: Int
        var userID: String?
        var detail: String
    }

    var accepted = 0
    var refused: [Refused] = []

    var json: String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.member("accepted", accepted)
        writer.key("refused")
        writer.beginArray()
        for line in refused {
            writer.beginObject()
            writer.member("line", line.line)
            writer.member("userID", line.userID)
            writer.member("detail", line.detail)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.string
    }

    func print(_ terminal: Terminal) {
        let total = accepted + refused.count
        terminal.line(
            "Stored \(ProgressLine.grouped(accepted)) of \(ProgressLine.grouped(total)) reports"
                + (refused.isEmpty ? "." : "; \(ProgressLine.grouped(refused.count)) refused:"))
        for line in refused {
            let user = line.userID.map { " (\($0))" } ?? ""
            terminal.line("  line \(line.line)\(user): \(line.detail)")
        }
    }
}
