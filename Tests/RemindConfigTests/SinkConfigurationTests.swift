import RemindConfig
import RemindCore
import Testing

struct SinkConfigurationTests {
    /// A lone sink is named after its type; several of a type are numbered in order, named
    /// ones included, and an explicit name is kept.
    @Test func namesDefaultToTypeOrNumberedType() throws {
        let configuration = try parse(
            #"""
            {"sinks":[{"type":"journal"},{"type":"file","path":"/a"},{"type":"file","path":"/b","name":"audit"},
                      {"type":"file","path":"/c"},{"type":"exec","command":["/bin/true"]}]}
            """#)
        #expect(configuration.sinks.map(\.name) == ["journal", "file-1", "audit", "file-3", "exec"])
    }

    /// Two sinks may not share a name, whether written or defaulted.
    @Test func duplicateNamesAreRefused() {
        let written = refusal(
            #"{"sinks":[{"type":"exec","command":["/bin/true"],"name":"push"},"#
                + #"{"type":"file","path":"/a","name":"push"}]}"#
        )
        #expect(written?.field == "sinks[1].name")
        #expect(written?.reason == #""push" is already the name of sinks[0]; sink names must be unique"#)
        let defaulted = refusal(#"{"sinks":[{"type":"file","path":"/a","name":"file-2"},{"type":"file","path":"/b"}]}"#)
        #expect(defaulted?.field == "sinks[1].name")
    }

    /// Each type's own keys are read into the enum's associated value, with their defaults.
    @Test func eachTypeReadsItsOwnKeysWithDefaults() throws {
        let configuration = try parse(
            #"""
            {"sinks":[
              {"type":"journal"},
              {"type":"file","path":"events.jsonl"},
              {"type":"exec","command":["/usr/bin/notify-send","Reminder"]},
              {"type":"webhook","url":"https://push.example.com/hook","secretFile":"/etc/remindd/webhook.secret",
               "headers":{"Authorization":"Bearer abc"}}]}
            """#)
        #expect(configuration.sinks[0].kind == .journal)
        #expect(configuration.sinks[1].kind == .file(FileSinkConfiguration(path: "events.jsonl")))
        #expect(
            configuration.sinks[2].kind
                == .exec(ExecSinkConfiguration(command: ["/usr/bin/notify-send", "Reminder"], timeoutSeconds: 10)))
        #expect(
            configuration.sinks[3].kind
                == .webhook(
                    WebhookSinkConfiguration(
                        url: "https://push.example.com/hook", secretFile: "/etc/remindd/webhook.secret",
                        timeoutSeconds: 10, headers: ["Authorization": "Bearer abc"], maxConcurrency: 4)))
        #expect(configuration.sinks.map(\.type) == [.journal, .file, .exec, .webhook])
    }

    /// Retry policy and rate limit are read per sink; unset members keep their defaults.
    @Test func retryAndRateLimitAreReadPerSink() throws {
        let configuration = try parse(
            #"""
            {"sinks":[{"type":"file","path":"/a","retry":{"initialBackoffSeconds":0.5,"maxAttempts":3},
                       "rateLimit":{"ratePerSecond":2.5,"burst":10}},
                      {"type":"journal","rateLimit":{"ratePerSecond":1}}]}
            """#)
        #expect(
            configuration.sinks[0].retry
                == RetryPolicy(initialBackoffSeconds: 0.5, maxBackoffSeconds: 3600, maxAttempts: 3))
        #expect(configuration.sinks[0].rateLimit == RateLimit(ratePerSecond: 2.5, burst: 10))
        #expect(configuration.sinks[1].retry == .default)
        #expect(configuration.sinks[1].rateLimit == RateLimit(ratePerSecond: 1, burst: nil))
    }

    /// An unknown key on a sink says which keys that type knows.
    @Test func unknownSinkKeyListsTheTypesKeys() {
        let error = refusal(#"{"sinks":[{"type":"file","path":"/a","url":"https://x"}]}"#)
        #expect(error?.field == "sinks[0].url")
        #expect(error?.reason == "is not a known key for a file sink (type, name, role, path, retry, rateLimit)")
    }
}
