import AstraJSON
import Testing

/// parse → encode → parse: the same value, and the compact text back byte for byte.
@Suite struct JSONRoundTripTests {
    static let texts = [
        #"{"v":1,"user":"1001","expires":600,"tls_verify":false,"server":null}"#,
        #"[1,-2.5e+10,"\u00e9\ud83d\ude00\\\"",true,false,null,{"a":{}}]"#,
        #"{"exp":1e999,"iat":9007199254740993,"n":-0.000,"big":123456789012345678901234567890}"#,
        #"{"s":"line\u2028sep\u007fdel\u0000nul\u001bctl"}"#,
        #"{"k":1,"k":2}"#,
    ]

    @Test(arguments: texts)
    func roundTrips(_ text: String) throws {
        let value = try JSONValue.parse(text)
        let written = value.jsonText
        #expect(try JSONValue.parse(written) == value)
        #expect(try JSONValue.parse(written).jsonText == written)
    }

    @Test func whitespaceIsDroppedAndEverythingElseKept() throws {
        let pretty = "{\n  \"a\" : [ 1.50 , 2e2 ],\n  \"b\" : { }\n}\n"
        #expect(try JSONValue.parse(pretty).jsonText == #"{"a":[1.50,2e2],"b":{}}"#)
    }

    /// Escapes come back in the one escaper's form (`\/` → `/`, `\u0041` → `A`), still the same value.
    @Test func escapesAreNormalizedToTheOneEscaper() throws {
        let value = try JSONValue.parse(#""\/\u0041\u00e9\n\u007F""#)
        #expect(value.jsonText == #""/Aé\n\u007f""#)
        #expect(try JSONValue.parse(value.jsonText) == value)
    }

    /// Every prefix and every single-byte change of valid texts: the parser returns a value or a
    /// one-line error, never traps; whatever it accepts survives encode → parse.
    @Test func mutatedTextsNeverTrapAndWhatParsesRoundTrips() throws {
        var accepted = 0
        var refused = 0
        let replacements: [UInt8] = [0x00, 0x09, 0x22, 0x2C, 0x30, 0x5B, 0x5C, 0x5D, 0x7B, 0x7D, 0x80, 0xFF]
        for text in Self.texts {
            let bytes = Array(text.utf8)
            var variants = (0...bytes.count).map { Array(bytes.prefix($0)) }
            for index in bytes.indices {
                for byte in replacements {
                    var changed = bytes
                    changed[index] = byte
                    variants.append(changed)
                }
            }
            for variant in variants {
                do {
                    let value = try JSONValue.parse(variant)
                    #expect(try JSONValue.parse(value.jsonText) == value)
                    accepted += 1
                } catch {
                    #expect(!error.description.contains("\n"))
                    refused += 1
                }
            }
        }
        #expect(accepted > 50 && refused > 500)
    }
}
