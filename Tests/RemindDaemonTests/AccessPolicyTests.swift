import Testing

@testable import RemindDaemon

struct AccessPolicyTests {
    /// The token comparison is exact: equal tokens match; a prefix, an extension, one changed
    /// byte and the empty token do not.
    @Test func tokenComparisonIsExact() {
        let token = Array("s3cret-token".utf8)
        #expect(AccessPolicy.constantTimeEqual(token, token))
        #expect(!AccessPolicy.constantTimeEqual(Array("s3cret".utf8), token))
        #expect(!AccessPolicy.constantTimeEqual(Array("s3cret-token!".utf8), token))
        #expect(!AccessPolicy.constantTimeEqual(Array("s3cret-tokeN".utf8), token))
        #expect(!AccessPolicy.constantTimeEqual([], token))
        #expect(AccessPolicy.constantTimeEqual([], []))
    }
}
