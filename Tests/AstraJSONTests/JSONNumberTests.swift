import AstraJSON
import Testing

/// Numbers keep their literal (RFC 8259 §6): exact integers, huge values reported as written,
/// parse → encode stable.
@Suite struct JSONNumberTests {
    @Test(
        arguments: [
            ("3600", 3600 as Int?, 3600.0),
            ("-42", -42, -42),
            ("-0", 0, -0.0),
            ("0.25", nil, 0.25),
            ("1.0", nil, 1),
            ("1e3", nil, 1000),
            ("-1.5E+3", nil, -1500),
            ("9007199254740993", 9_007_199_254_740_993, 9_007_199_254_740_992),  // exact as Int, not via Double
            ("9223372036854775807", Int.max, 9.223372036854775807e18),
            ("9223372036854775808", nil, 9.223372036854775808e18),
            ("99999999999999999999", nil, 1e20),
            ("1e999", nil, .infinity),
            ("-1e999", nil, -.infinity),
            ("1e-999", nil, 0),
        ] as [(String, Int?, Double)])
    func keepsTheLiteral(_ literal: String, _ int: Int?, _ double: Double) throws {
        let value = try JSONValue.parse(literal)
        let number = try #require(value.numberValue)
        #expect(number.text == literal)
        #expect(number.int == int)
        #expect(number.double == double)
        #expect(value.jsonText == literal)
    }

    @Test func aHugeLiteralIsReadInLinearTimeAndKept() throws {
        let literal = "1" + String(repeating: "0", count: 200_000) + ".5e-7"
        let number = try #require(try JSONValue.parse(literal).numberValue)
        #expect(number.text == literal && number.int == nil && number.double == .infinity)
    }

    @Test(arguments: ["0", "-0", "10", "1.5", "1e5", "1E-5", "-0.0e+0"])
    func validLiterals(_ literal: String) {
        #expect(JSONNumber(literal: literal)?.text == literal)
    }

    @Test(arguments: ["", "01", "+1", ".5", "1.", "1e", "--1", " 1", "1 ", "0x10", "NaN", "inf", "1,0", "١"])
    func invalidLiterals(_ literal: String) {
        #expect(JSONNumber(literal: literal) == nil)
    }

    @Test func swiftValuesGetTheirCanonicalText() {
        #expect(JSONNumber(Int64.min).text == "-9223372036854775808")
        #expect(JSONNumber(UInt64.max).text == "18446744073709551615")
        #expect(JSONNumber(3600.0)?.text == "3600")
        #expect(JSONNumber(1e15)?.text == "1000000000000000.0" && JSONNumber(1e16)?.text == "1e+16")
        #expect(JSONNumber(Double.nan) == nil && JSONNumber(-Double.infinity) == nil)
        #expect(JSONValue.double(.infinity) == .null)
        #expect(JSONValue.int(Int32(-7)) == -7)
    }

    /// Equality is on the literal: `1` and `1.0` are different texts with the same value.
    @Test func equalityIsOnTheLiteral() throws {
        #expect(try JSONValue.parse("1") != JSONValue.parse("1.0"))
        #expect(try JSONValue.parse("1").doubleValue == JSONValue.parse("1.0").doubleValue)
        #expect(JSONValue.double(1) == JSONValue.int(1))
    }
}
