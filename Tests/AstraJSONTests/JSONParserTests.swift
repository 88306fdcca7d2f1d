import AstraJSON
import Testing

/// The one parser against RFC 8259's grammar: what it must accept, what it must refuse and where
/// (tables in the manner of JSONTestSuite's `y_`/`n_` cases).
@Suite struct JSONParserTests {
    /// Valid texts and the value each one is.
    @Test(
        arguments: [
            ("null", JSONValue.null),
            (" \t\r\ntrue\n", true),
            ("false", false),
            ("[]", []),
            ("{}", [:]),
            ("[1,\"a\",null,[],{}]", [1, "a", nil, [], [:]]),
            (#"{"a":{"b":[true]}}"#, ["a": ["b": [true]]]),
            (#""\"\\\/\b\f\n\r\t""#, "\"\\/\u{08}\u{0C}\n\r\t"),
            (#""\u00e9\u2028""#, "é\u{2028}"),
            (#""\ud83d\ude00""#, "😀"),
            (#""\u0000""#, "\u{00}"),  // an escaped NUL is a valid string
            ("\"héllo ☎️\"", "héllo ☎️"),
            ("\"\u{7F}\"", "\u{7F}"),  // DEL is not a control character to RFC 8259 §7
            ("-0", .number(JSONNumber(literal: "-0")!)),
        ] as [(String, JSONValue)])
    func accepts(_ text: String, _ expected: JSONValue) throws {
        #expect(try JSONValue.parse(text) == expected)
    }

    /// Invalid texts: the code and the byte where reading stopped.
    @Test(
        arguments: [
            ("", JSONParseError.Code.empty, 0),
            ("  \n", .empty, 0),
            (#"{"user":"alice",}"#, .syntax, 16),
            ("[1,]", .syntax, 3),
            ("[1 2]", .syntax, 3),
            (#"{"a" 1}"#, .syntax, 5),
            ("{a:1}", .syntax, 1),
            ("01", .syntax, 1),
            ("-01", .syntax, 2),
            ("+1", .syntax, 0),
            (".5", .syntax, 0),
            ("1.", .syntax, 2),
            ("1e", .syntax, 2),
            ("1e+", .syntax, 3),
            ("-", .syntax, 1),
            ("NaN", .syntax, 0),
            ("Infinity", .syntax, 0),
            ("tru", .syntax, 0),
            ("nulL", .syntax, 0),
            ("'a'", .syntax, 0),
            ("1 2", .syntax, 2),
            ("[1]/* c */", .syntax, 3),
            ("\u{FEFF}[]", .syntax, 0),  // a byte order mark is not JSON (RFC 8259 §8.1)
            ("[", .syntax, 1),
            (#"{"a":1"#, .syntax, 6),
            (#""abc"#, .badString, 4),
            (#""\x""#, .badString, 3),
            (#""\u12""#, .badString, 3),
            (#""\u12g4""#, .badString, 5),
            (#""\ud800""#, .badString, 7),
            (#""\ud800\u0041""#, .badString, 13),
            (#""\udc00""#, .badString, 7),
            ("\"a\u{01}b\"", .badString, 3),
            ("\"tab\there\"", .badString, 5),
        ] as [(String, JSONParseError.Code, Int)])
    func refuses(_ text: String, _ code: JSONParseError.Code, _ offset: Int) {
        #expect {
            try JSONValue.parse(text)
        } throws: { error in
            guard let error = error as? JSONParseError else { return false }
            return error.code == code && error.offset == offset && !error.description.contains("\n")
        }
    }

    /// Bytes that are not UTF-8 inside a string, and raw NUL anywhere.
    @Test(
        arguments: [
            ([0x22, 0xC3, 0x28, 0x22], JSONParseError.Code.badString),  // bad continuation byte
            ([0x22, 0xC0, 0xAF, 0x22], .badString),  // overlong '/'
            ([0x22, 0xED, 0xA0, 0x80, 0x22], .badString),  // a surrogate encoded raw
            ([0x22, 0xFF, 0x22], .badString),
            ([0x22, 0x61, 0x00, 0x22], .badString),  // raw NUL in a string
            ([0x5B, 0x00, 0x5D], .syntax),  // raw NUL between tokens
            ([0x31, 0x00], .syntax),
            ([0xC3, 0xA9], .syntax),  // UTF-8 outside a string
        ] as [([UInt8], JSONParseError.Code)])
    func refusesBadBytes(_ bytes: [UInt8], _ code: JSONParseError.Code) {
        #expect(throws: JSONParseError(code, at: 0, "")) { try JSONValue.parse(bytes) }
    }

    @Test func errorsSayWhereAndWhatInOneLine() {
        #expect {
            try JSONValue.parse(#"{"user":"alice",}"#)
        } throws: { error in
            "\(error)" == "invalid JSON at byte 16: expected a key string"
        }
        #expect {
            try JSONValue.parse("")
        } throws: { error in
            "\(error)" == "invalid JSON: empty input"
        }
        // A control byte in the text is named in hex, never written raw to a terminal.
        #expect {
            try JSONValue.parse([0x5B, 0x1B, 0x5D])
        } throws: { error in
            "\(error)" == "invalid JSON at byte 1: unexpected character 0x1B"
        }
    }

    /// RFC 8259 §4 leaves repeated names to the implementation: all are kept in order (so
    /// re-encoding gives the same text) and lookup takes the last, as JavaScript does.
    @Test func repeatedKeysAreKeptAndTheLastOneIsRead() throws {
        let value = try JSONValue.parse(#"{"exp":1,"sub":"a","exp":2}"#)
        #expect(value["exp"] == 2)
        #expect(value.objectValue?.count == 3)
        #expect(value.jsonText == #"{"exp":1,"sub":"a","exp":2}"#)
        var object = try #require(value.objectValue)
        object["exp"] = 3
        #expect(object.jsonText == #"{"exp":1,"sub":"a","exp":3}"#)
        object["exp"] = nil
        #expect(object.jsonText == #"{"sub":"a"}"#)
    }

    @Test func onlyAnObjectParsesAsAnObject() throws {
        #expect(try JSONObject.parse(Array(#"{"a":1}"#.utf8))["a"] == 1)
        #expect(throws: JSONParseError(.syntax, at: 0, "")) { try JSONObject.parse(Array("[1]".utf8)) }
    }

    @Test func typedViewsReadOnlyTheirOwnType() throws {
        let value = try JSONValue.parse(#"{"s":"7","n":7,"b":true,"a":[1],"o":{}}"#)
        #expect(value["s"]?.stringValue == "7" && value["s"]?.intValue == nil)
        #expect(value["n"]?.intValue == 7 && value["n"]?.stringValue == nil && value["n"]?.doubleValue == 7)
        #expect(value["b"]?.boolValue == true && value["b"]?.intValue == nil)
        #expect(value["a"]?.arrayValue == [1] && value["o"]?.objectValue == [:])
        #expect(value["missing"] == nil && value["s"]?["x"] == nil)
        #expect(value.typeName == "object" && value["a"]?.typeName == "array" && value["n"]?.typeName == "number")
    }
}
