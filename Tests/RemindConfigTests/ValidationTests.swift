import RemindConfig
import RemindCore
import Testing

struct ValidationTests {
    /// Every invalid file is refused with the exact key path of the offending member.
    @Test(arguments: [
        // Wrong types and ranges at the top level and in each section.
        (#"{"stateDirectory":42}"#, "stateDirectory"),
        (#"{"stateDirectory":""}"#, "stateDirectory"),
        (#"{"schedule":[]}"#, "schedule"),
        (#"{"notification":{"notificationTriggerDelay":"7d"}}"#, "notification.notificationTriggerDelay"),
        (#"{"notification":{"notificationTitle":"Hi","extra":1}}"#, "notification.extra"),
        (#"{"schedule":{"jitterSeconds":-1}}"#, "schedule.jitterSeconds"),
        (#"{"schedule":{"catchUpSpreadSeconds":1.5}}"#, "schedule.catchUpSpreadSeconds"),
        (#"{"schedule":{"maxRemindersPerEpisode":0}}"#, "schedule.maxRemindersPerEpisode"),
        (#"{"schedule":{"quietHours":{"start":"25:00","end":"08:00"}}}"#, "schedule.quietHours.start"),
        (#"{"schedule":{"quietHours":{"start":"21:00","end":"08:00","zone":"UTC"}}}"#, "schedule.quietHours.zone"),
        (#"{"schedule":{"quietHours":{"start":"21:00"}}}"#, "schedule.quietHours.end"),
        (#"{"heartbeat":{"intervalSeconds":0}}"#, "heartbeat.intervalSeconds"),
        (#"{"history":{"maxEntries":0}}"#, "history.maxEntries"),
        (#"{"history":{"maxEntries":100001}}"#, "history.maxEntries"),
        (#"{"history":{"maxEntries":5},"history":{"maxEntries":6}}"#, "history"),
        (#"{"colour":"blue"}"#, "colour"),
        // Listen.
        (#"{"listen":{"socket":"/run/\#(String(repeating: "s", count: 120))"}}"#, "listen.socket"),
        (#"{"listen":{"tcp":"127.0.0.1:99999","tokenFile":"/etc/remindd/token"}}"#, "listen.tcp"),
        (#"{"listen":{"tcp":"::1:8650","tokenFile":"/etc/remindd/token"}}"#, "listen.tcp"),
        (#"{"listen":{"tcp":"127.0.0.1:8650"}}"#, "listen.tokenFile"),
        (#"{"listen":{"tcp":8650,"tokenFile":"/t"}}"#, "listen.tcp"),
        (#"{"listen":{"tcp":"127.0.0.1:8650","tokenFile":"/t","tls":{"keyFile":"/k"}}}"#, "listen.tls.certFile"),
        (#"{"listen":{"tcp":"127.0.0.1:8650","tokenFile":"/t","tls":{"certFile":"/c"}}}"#, "listen.tls.keyFile"),
        (
            #"{"listen":{"tcp":"127.0.0.1:8650","tokenFile":"/t","tls":{"certFile":"","keyFile":"/k"}}}"#,
            "listen.tls.certFile"
        ),
        (
            #"{"listen":{"tcp":"127.0.0.1:8650","tokenFile":"/t","tls":{"certFile":"/c","keyFile":"/k","clientCAFile":7}}}"#,
            "listen.tls.clientCAFile"
        ),
        (
            #"{"listen":{"tcp":"127.0.0.1:8650","tokenFile":"/t","tls":{"certFile":"/c","keyFile":"/k","pin":"x"}}}"#,
            "listen.tls.pin"
        ),
        (#"{"listen":{"tcp":"127.0.0.1:8650","tokenFile":"/t","tls":"/c"}}"#, "listen.tls"),
        (#"{"listen":{"tls":{"certFile":"/c","keyFile":"/k"}}}"#, "listen.tls"),
        // Sinks: the list, common keys, and each type's own keys.
        (#"{"sinks":[]}"#, "sinks"),
        (#"{"sinks":{"type":"journal"}}"#, "sinks"),
        (#"{"sinks":["journal"]}"#, "sinks[0]"),
        (#"{"sinks":[{"name":"x"}]}"#, "sinks[0].type"),
        (#"{"sinks":[{"type":"carrier-pigeon"}]}"#, "sinks[0].type"),
        (#"{"sinks":[{"type":"journal","path":"/x"}]}"#, "sinks[0].path"),
        (#"{"sinks":[{"type":"file","path":"/a","name":"a b"}]}"#, "sinks[0].name"),
        (
            #"{"sinks":[{"type":"journal"},{"type":"file","path":"/x","retry":{"maxAttempts":0}}]}"#,
            "sinks[1].retry.maxAttempts"
        ),
        (
            #"{"sinks":[{"type":"file","path":"/x","retry":{"initialBackoffSeconds":0}}]}"#,
            "sinks[0].retry.initialBackoffSeconds"
        ),
        (
            #"{"sinks":[{"type":"file","path":"/x","retry":{"initialBackoffSeconds":10,"maxBackoffSeconds":5}}]}"#,
            "sinks[0].retry.maxBackoffSeconds"
        ),
        (#"{"sinks":[{"type":"file","path":"/x","retry":{"jitter":true}}]}"#, "sinks[0].retry.jitter"),
        (
            #"{"sinks":[{"type":"file","path":"/x","rateLimit":{"ratePerSecond":0}}]}"#,
            "sinks[0].rateLimit.ratePerSecond"
        ),
        (
            #"{"sinks":[{"type":"file","path":"/x","rateLimit":{"ratePerSecond":5,"burst":0}}]}"#,
            "sinks[0].rateLimit.burst"
        ),
        (#"{"sinks":[{"type":"file","path":"/x","rateLimit":{"burst":5}}]}"#, "sinks[0].rateLimit.burst"),
        (#"{"sinks":[{"type":"file"}]}"#, "sinks[0].path"),
        (#"{"sinks":[{"type":"file","path":""}]}"#, "sinks[0].path"),
        (#"{"sinks":[{"type":"file","path":"/x","timeoutSeconds":5}]}"#, "sinks[0].timeoutSeconds"),
        (#"{"sinks":[{"type":"exec","command":[]}]}"#, "sinks[0].command"),
        (#"{"sinks":[{"type":"exec","command":"notify-send hi"}]}"#, "sinks[0].command"),
        (#"{"sinks":[{"type":"exec","command":[""]}]}"#, "sinks[0].command[0]"),
        (#"{"sinks":[{"type":"exec","command":["/bin/echo",1]}]}"#, "sinks[0].command[1]"),
        (#"{"sinks":[{"type":"exec","command":["/bin/true"],"timeoutSeconds":-1}]}"#, "sinks[0].timeoutSeconds"),
        (#"{"sinks":[{"type":"webhook"}]}"#, "sinks[0].url"),
        (#"{"sinks":[{"type":"webhook","url":"ftp://example.com/x"}]}"#, "sinks[0].url"),
        (#"{"sinks":[{"type":"webhook","url":"https:///path"}]}"#, "sinks[0].url"),
        (#"{"sinks":[{"type":"webhook","url":"https://user:pw@example.com/"}]}"#, "sinks[0].url"),
        (#"{"sinks":[{"type":"webhook","url":"https://example.com","maxConcurrency":0}]}"#, "sinks[0].maxConcurrency"),
        (#"{"sinks":[{"type":"webhook","url":"https://example.com","secretFile":""}]}"#, "sinks[0].secretFile"),
        (
            #"{"sinks":[{"type":"webhook","url":"https://example.com","headers":{"Bad Header":"x"}}]}"#,
            "sinks[0].headers.Bad Header"
        ),
        (
            #"{"sinks":[{"type":"webhook","url":"https://example.com","headers":{"X-A":"a\r\nB: c"}}]}"#,
            "sinks[0].headers.X-A"
        ),
        (#"{"sinks":[{"type":"webhook","url":"https://example.com","headers":{"X-A":1}}]}"#, "sinks[0].headers.X-A"),
        (
            #"{"sinks":[{"type":"webhook","url":"https://example.com","headers":{"x-a":"1","X-A":"2"}}]}"#,
            "sinks[0].headers.X-A"
        ),
        (
            #"{"sinks":[{"type":"webhook","url":"https://example.com","headers":{"Webhook-Signature":"v1,x"}}]}"#,
            "sinks[0].headers.Webhook-Signature"
        ),
        // The whole document.
        ("[]", ""),
        (#"{"history":{"maxEntries":1000,}}"#, ""),
    ])
    func invalidFileIsRefusedNamingTheKeyPath(text: String, field: String) {
        let error = refusal(text)
        #expect(error?.field == field, "\(text)")
        #expect(error?.reason.isEmpty == false)
    }

    /// Range errors say which bound was broken, in the words the daemon prints.
    @Test func rangeErrorNamesTheBrokenBound() {
        #expect(refusal(#"{"schedule":{"jitterSeconds":-1}}"#)?.reason == "must be at least 0")
        #expect(refusal(#"{"history":{"maxEntries":100001}}"#)?.reason == "must be at most 100000")
        #expect(
            refusal(#"{"sinks":[{"type":"carrier-pigeon"}]}"#)?.reason
                == #"must be one of journal, file, exec, webhook, apns, fcm; got "carrier-pigeon""#)
    }

    /// Malformed JSON is refused with an empty field and the byte offset where reading stopped.
    @Test func badJSONReportsTheByteOffset() {
        let error = refusal(#"{"history":{"maxEntries":1000,}}"#)
        #expect(
            error
                == ValidationError(
                    field: "", reason: "invalid JSON at byte 30: expected a member name (line 1, column 31)"))
        let multiline = refusal("{\n  \"stateDirectory\": \"/x\"\n  \"history\": {}\n}")
        #expect(multiline?.reason == "invalid JSON at byte 29: expected ',' or '}' (line 3, column 3)")
    }

    /// A TCP listener without a token file is refused, naming the missing key.
    @Test func tcpWithoutTokenFileIsRefused() {
        let error = refusal(#"{"listen":{"tcp":"127.0.0.1:8650","tokenFile":null}}"#)
        #expect(error == ValidationError(field: "listen.tokenFile", reason: "or listen.tokensFile is required when listen.tcp is set"))
    }

    /// TCP addresses accept IPv4, bracketed IPv6 and host names, with ports 1–65535 only.
    @Test func tcpAddressParsesTheDocumentedForms() throws {
        #expect(try TCPAddress("127.0.0.1:8650") == TCPAddress(host: "127.0.0.1", port: 8650))
        #expect(try TCPAddress("[::1]:8650") == TCPAddress(host: "::1", port: 8650))
        #expect(try TCPAddress("localhost:1") == TCPAddress(host: "localhost", port: 1))
        #expect(try TCPAddress("api.example.com:65535").description == "api.example.com:65535")
        #expect(try TCPAddress("[::1]:8650").description == "[::1]:8650")
        let bad = [
            "127.0.0.1", "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:80a", "127.0.0.1:", ":8650", "::1:8650",
            "[::1]8650", "[zz::]:80", "10.0.0.300:80", "bad_host:80", "-bad.example:80", "[::1]:",
        ]
        for text in bad {
            #expect(throws: ValidationError.self, "\(text)") { try TCPAddress(text) }
        }
    }

    /// The parsed TCP address is available to the daemon beside the text.
    @Test func listenExposesTheParsedTCPAddress() throws {
        let configuration = try parse(#"{"listen":{"tcp":"[::1]:8650","tokenFile":"/etc/remindd/token"}}"#)
        #expect(configuration.listen.tcpAddress == TCPAddress(host: "::1", port: 8650))
        #expect(configuration.listen.tokenFile == "/etc/remindd/token")
    }

    /// `listen.tls` reads its three paths; the effective configuration shows them (never the
    /// files' contents) and reads back as the same configuration.
    @Test func listenTLSReadsItsFilesAndWritesThemBack() throws {
        let configuration = try parse(
            #"{"listen":{"tcp":"127.0.0.1:8650","tokenFile":"/t","#
                + #""tls":{"certFile":"/etc/remindd/cert.pem","keyFile":"/etc/remindd/key.pem","#
                + #""clientCAFile":"/etc/remindd/clients.pem"}}}"#)
        #expect(
            configuration.listen.tls
                == TLSFiles(
                    certFile: "/etc/remindd/cert.pem", keyFile: "/etc/remindd/key.pem",
                    clientCAFile: "/etc/remindd/clients.pem"))
        #expect(
            configuration.listen.json.serialized.contains(
                #""tls":{"certFile":"/etc/remindd/cert.pem","keyFile":"/etc/remindd/key.pem","#
                    + #""clientCAFile":"/etc/remindd/clients.pem"}"#))
        #expect(try parse(configuration.json.serialized) == configuration)
        let plain = try parse(#"{"listen":{"tcp":"127.0.0.1:8650","tokenFile":"/t","tls":null}}"#)
        #expect(plain.listen.tls == nil)
    }
}
