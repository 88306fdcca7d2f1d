import AstraJSON
import Testing

/// The one escaper: RFC 8259 §7 plus DEL and U+2028/U+2029 (docs/decisions.md D40).
@Suite struct JSONStringTests {
    @Test(
        arguments: [
            ("plain ASCII", #""plain ASCII""#),
            ("", #""""#),
            ("q\"b\\", #""q\"b\\""#),
            ("\n\r\t\u{08}\u{0C}", #""\n\r\t\b\f""#),
            ("\u{00}\u{1F}", #""\u0000\u001f""#),
            ("del\u{7F}", #""del\u007f""#),
            ("ls\u{2028}ps\u{2029}", #""ls\u2028ps\u2029""#),
            ("\u{85}nel é ☎️ 𝄞", "\"\u{85}nel é ☎️ 𝄞\""),
            ("slash / stays", #""slash / stays""#),
        ])
    func escapes(_ raw: String, _ expected: String) {
        #expect(JSONString.quoted(raw) == expected)
        var out = "x"
        JSONString.write(raw, to: &out)
        #expect(out == "x" + expected)
    }

    /// Keys go through the same escaper as values.
    @Test func keysAreEscapedLikeValues() {
        let value: JSONValue = ["a\u{7F}\"": "v\u{2028}"]
        #expect(value.jsonText == #"{"a\u007f\"":"v\u2028"}"#)
    }
}
