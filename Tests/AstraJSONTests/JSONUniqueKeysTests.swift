import AstraJSON
import Testing

/// ``JSONParser/Limits/uniqueKeys``: the parser option every reader of outside configuration
/// uses (lines, platform answers, JWTs). A repeated member name is refused with the name and the
/// byte where its second occurrence starts; without the option repeats are kept as before.
@Suite struct JSONUniqueKeysTests {
    static func refusal(_ text: String) -> JSONParseError? {
        do {
            _ = try JSONValue.parse(text, limits: .uniqueKeys)
            return nil
        } catch {
            return error
        }
    }

    @Test func aRepeatedMemberIsRefusedNamingIt() throws {
        let error = try #require(Self.refusal(#"{"user":"1001","user":"1002"}"#))
        #expect(error.code == .duplicateKey)
        #expect(error.offset == 15)
        #expect(error.description == #"invalid JSON at byte 15: member "user" given twice"#)
        // The same text without the option: both kept, the last one read.
        #expect(try JSONValue.parse(#"{"user":"1001","user":"1002"}"#)["user"] == "1002")
    }

    /// Escapes do not hide a repeat (`"us\u0065r"` is `"user"`), and nested objects are checked too.
    @Test(arguments: [
        #"{"user":"1","us\u0065r":"2"}"#,
        #"{"a":{"tls_verify":true,"x":1,"tls_verify":false}}"#,
        #"[{"k":1},{"k":1,"k":2}]"#,
    ])
    func repeatsAreFoundAnywhere(_ text: String) {
        #expect(Self.refusal(text)?.code == .duplicateKey)
    }

    @Test func distinctNamesAndSameNamesInSiblingObjectsParse() throws {
        let value = try JSONValue.parse(#"{"a":{"k":1},"b":{"k":2},"c":[{"k":3}]}"#, limits: .uniqueKeys)
        #expect(value["b"]?["k"] == 2)
    }

    /// Past 16 members the names go into a hash set: a repeat at member 100 is still found, and
    /// a wide object of distinct names parses.
    @Test func wideObjects() throws {
        let members = (0..<100).map { "\"k\($0)\":\($0)" }
        let wide = "{" + members.joined(separator: ",") + "}"
        #expect(try JSONValue.parse(wide, limits: .uniqueKeys).objectValue?.count == 100)
        let repeated = "{" + (members + [#""k3":0"#]).joined(separator: ",") + "}"
        let error = try #require(Self.refusal(repeated))
        #expect(error.code == .duplicateKey && error.detail == #"member "k3" given twice"#)
    }

    /// A hostile name is shown quoted with its controls escaped, C1 controls replaced and cut
    /// at 40 characters: it cannot drive a terminal or flood the error line.
    @Test func aHostileNameIsShownSafely() throws {
        let name = "\\u001b[2J\u{9B}31m" + String(repeating: "x", count: 100)
        let error = try #require(Self.refusal("{\"\(name)\":1,\"\(name)\":2}"))
        #expect(error.detail.hasPrefix(#"member "\u001b[2J?31mxxx"#))
        #expect(error.detail.hasSuffix("… given twice"))
        #expect(!error.detail.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
    }

    @Test func theOptionIsPartOfTheLimits() {
        #expect(JSONParser.Limits.uniqueKeys == JSONParser.Limits(uniqueKeys: true))
        #expect(JSONParser.Limits.standard.uniqueKeys == false)
    }
}
