import AstraTestSupport
import Foundation
import SIPCore
import Testing

@testable import SIPDialog

/// RFC 3261 §8.2 UAS checks, one rule at a time, then the RFC 4475 torture messages whose
/// expected handling is one of these answers.
@Suite struct RequestValidatorTests {
    let validator = RequestValidator(
        allow: "INVITE, ACK, CANCEL, BYE, OPTIONS, INFO, UPDATE, NOTIFY", supported: "path, outbound, timer")

    func request(_ text: String) throws -> SIPRequest {
        let wire = text.replacingOccurrences(of: "\n", with: "\r\n")
        return try #require(try SIPMessage(parsing: wire).request)
    }

    func options(
        method: String = "OPTIONS", uri: String = "sip:user@example.com", version: String = "SIP/2.0",
        cseq: String = "8 OPTIONS", extra: String = "", omit: String = ""
    ) throws -> SIPRequest {
        var lines = [
            "Via: SIP/2.0/UDP host.example.com;branch=z9hG4bKvalid", "Max-Forwards: 70",
            "To: <sip:user@example.com>", "From: <sip:caller@example.net>;tag=1", "Call-ID: valid.1",
            "CSeq: \(cseq)",
        ].filter { omit.isEmpty || !$0.hasPrefix(omit + ":") }
        if !extra.isEmpty { lines.append(extra) }
        return try request("\(method) \(uri) \(version)\n" + lines.joined(separator: "\n") + "\nContent-Length: 0\n\n")
    }

    @Test func aWellFormedRequestPasses() throws {
        #expect(validator.check(try options()) == nil)
        #expect(validator.check(try options(version: "sip/2.0")) == nil)  // §7.1: case-insensitive
    }

    @Test func otherVersionsGet505() throws {
        let rejection = validator.check(try options(version: "SIP/3.0"))
        #expect(rejection == .versionNotSupported("SIP/3.0"))
        #expect(rejection?.statusCode == 505)
        #expect(rejection?.reasonPhrase == "Version Not Supported")
    }

    @Test(arguments: [("Via", SIPHeaderName.via), ("To", .to), ("From", .from), ("Call-ID", .callID), ("CSeq", .cseq)])
    func eachMandatoryHeaderIsRequired(_ header: String, _ name: SIPHeaderName) throws {
        let rejection = validator.check(try options(omit: header))
        #expect(rejection == .missingHeader(name))
        #expect(rejection?.statusCode == 400)
        #expect(rejection?.reasonPhrase == "Missing \(name.canonicalName) Header")
    }

    @Test func maxForwardsIsNeitherRequiredNorEnforcedByAUA() throws {
        #expect(validator.check(try options(omit: "Max-Forwards")) == nil)
        var zero = try options()
        zero.headers.set(.maxForwards, "0")
        #expect(validator.check(zero) == nil)
    }

    @Test func aRepeatedSingleValueHeaderGets400() throws {
        let rejection = validator.check(try options(extra: "Call-ID: other.2"))
        #expect(rejection == .repeatedHeader(.callID))
        #expect(rejection?.reasonPhrase == "Multiple Call-ID Headers")
    }

    @Test func aRecognisedButUnsupportedMethodGets405WithAllow() throws {
        let rejection = validator.check(try options(method: "SUBSCRIBE", cseq: "8 SUBSCRIBE"))
        #expect(
            rejection
                == .methodNotAllowed("SUBSCRIBE", allow: "INVITE, ACK, CANCEL, BYE, OPTIONS, INFO, UPDATE, NOTIFY"))
        #expect(rejection?.statusCode == 405)
        #expect(rejection?.responseHeaders.first?.0 == .allow)
    }

    @Test func anUnknownMethodGets501WithAllow() throws {
        let rejection = validator.check(try options(method: "FROBNICATE", cseq: "8 FROBNICATE"))
        #expect(rejection?.statusCode == 501)
        #expect(rejection?.responseHeaders.first?.0 == .allow)
    }

    @Test func cseqMethodMismatchGets400() throws {
        let rejection = validator.check(try options(cseq: "8 INVITE"))
        #expect(rejection == .cseqMethodMismatch(requestLine: .options, cseq: .invite))
        #expect(rejection?.reasonPhrase == "CSeq Method Mismatch")
    }

    @Test func anUnsupportedSchemeGets416() throws {
        #expect(validator.check(try options(uri: "tel:+15551234")) == .unsupportedURIScheme("tel"))
        #expect(validator.check(try options(uri: "sips:user@example.com")) == nil)
    }

    @Test func requireWithUnknownTagsGets420ListingOnlyThose() throws {
        let rejection = validator.check(try options(extra: "Require: timer, 100rel, Foo"))
        #expect(rejection == .badExtension(["100rel", "Foo"]))
        #expect(rejection?.statusCode == 420)
        #expect(rejection?.responseHeaders.first?.0 == .unsupported)
        #expect(rejection?.responseHeaders.first?.1 == "100rel, Foo")
        #expect(validator.check(try options(extra: "Require: TIMER")) == nil)  // tokens: case-insensitive
    }

    @Test func ackAndCancelAreNeverRefusedForRequire() throws {
        #expect(validator.check(try options(method: "ACK", cseq: "8 ACK", extra: "Require: 100rel")) == nil)
        #expect(validator.check(try options(method: "CANCEL", cseq: "8 CANCEL", extra: "Require: 100rel")) == nil)
    }

    // MARK: RFC 4475 torture messages

    static let vectors = RepositoryRoot.appending(SIPCorpus.repositoryDirectory)

    static func vector(_ name: String) throws -> SIPRequest {
        let bytes = Array(try Data(contentsOf: vectors.appendingPathComponent(name + ".dat")))
        return try #require(try SIPMessage(parsing: bytes).request)
    }

    /// The RFC 4475 messages whose expected endpoint handling (manifest `expected_handling`) is one
    /// of the §8.2 answers, with that status.
    @Test(arguments: [
        ("badvers", 505),  // §3.1.2.16
        ("insuf", 400),  // §3.3.1: no To, From, Call-ID
        ("multi01", 400),  // §3.3.8: two CSeq, Call-ID, To, From, Max-Forwards
        ("mismatch01", 400),  // §3.1.2.17
        ("mismatch02", 501),  // §3.1.2.18: unknown method first
        ("intmeth", 501),  // §3.1.1.2: "endpoint: 501 with Allow"
        ("esc02", 501),  // §3.1.1.5: RE%47IST%45R is not REGISTER
        ("unkscm", 416),  // §3.3.2
        ("novelsc", 416),  // §3.3.3
        ("bext01", 420),  // §3.3.5
        ("regaut01", 405),  // §3.3.7: "non-registrar endpoint: 405"
    ])
    func tortureMessagesGetTheirRFC4475Answer(_ name: String, _ status: Int) throws {
        let rejection = validator.check(try Self.vector(name))
        #expect(rejection?.statusCode == status, "\(name): \(rejection.map(String.init(describing:)) ?? "accepted")")
    }

    @Test func bext01ListsBothUnsupportedTagsAndIgnoresProxyRequire() throws {
        let rejection = validator.check(try Self.vector("bext01"))
        #expect(rejection == .badExtension(["nothingSupportsThis", "nothingSupportsThisEither"]))
    }

    @Test func insufNamesTheFirstMissingHeader() throws {
        #expect(validator.check(try Self.vector("insuf")) == .missingHeader(.to))
    }

    /// Messages an endpoint processes normally: `zeromf` (Max-Forwards 0), `inv2543` (no
    /// Max-Forwards, RFC 2543 Via), `wsinv`, `esc01`, `escnull`, `semiuri`, `transports` (OPTIONS,
    /// INVITE, REGISTER-free ones).
    @Test(arguments: ["zeromf", "inv2543", "wsinv", "esc01", "semiuri", "transports", "lwsdisp", "longreq"])
    func validTortureMessagesPass(_ name: String) throws {
        let rejection = validator.check(try Self.vector(name))
        #expect(rejection == nil, "\(name): \(rejection.map(String.init(describing:)) ?? "")")
    }
}
