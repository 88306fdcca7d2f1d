import AstraJSON
import Testing

/// The bounds (RFC 8259 §9): nesting depth and text size, refused with an error, never a trap or a
/// stack overflow.
@Suite struct JSONParserLimitsTests {
    static func nested(_ depth: Int, open: String = "[", close: String = "]") -> String {
        String(repeating: open, count: depth) + String(repeating: close, count: depth)
    }

    @Test func sixtyFourLevelsParseAndSixtyFiveDoNot() throws {
        #expect(try JSONValue.parse(Self.nested(64)).arrayValue?.count == 1)
        #expect(throws: JSONParseError(.tooDeep, at: 0, "")) { try JSONValue.parse(Self.nested(65)) }
        let objects = String(repeating: #"{"a":"#, count: 65) + "1" + String(repeating: "}", count: 65)
        #expect(throws: JSONParseError(.tooDeep, at: 0, "")) { try JSONValue.parse(objects) }
    }

    /// A million open brackets stop at the limit, at the byte past it.
    @Test func aMillionOpenBracketsStopAtTheLimit() {
        #expect {
            try JSONValue.parse(String(repeating: "[", count: 1_000_000))
        } throws: { error in
            guard let error = error as? JSONParseError else { return false }
            return error.code == .tooDeep && error.offset == 64 && "\(error)".contains("nesting deeper than 64")
        }
    }

    @Test func theLimitsAreTheCallersToSet() throws {
        let strict = JSONParser.Limits(maxDepth: 2, maxBytes: 16)
        #expect(try JSONValue.parse("[[1]]", limits: strict) == [[1]])
        #expect(throws: JSONParseError(.tooDeep, at: 0, "")) { try JSONValue.parse("[[[1]]]", limits: strict) }
        #expect {
            try JSONValue.parse(#"{"a":"0123456789"}"#, limits: strict)
        } throws: { error in
            (error as? JSONParseError)?.code == .tooLarge && "\(error)" == "invalid JSON: text of 18 bytes over 16"
        }
        #expect(JSONParser.Limits.standard == JSONParser.Limits(maxDepth: 64, maxBytes: 16 << 20))
    }

    /// A long string and a long array cost linear time (and parse).
    @Test func longFlatInputsParse() throws {
        let long = "\"" + String(repeating: "é\\n", count: 100_000) + "\""
        #expect(try JSONValue.parse(long).stringValue?.count == 200_000)
        let wide = "[" + Array(repeating: "0", count: 100_000).joined(separator: ",") + "]"
        #expect(try JSONValue.parse(wide).arrayValue?.count == 100_000)
    }
}
