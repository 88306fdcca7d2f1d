import AstraJSON
import Foundation
import Testing

/// `Decodable` types from the one parser's value, checked against Foundation's `JSONDecoder` as
/// the reference where both should agree (the readers that moved from it must decode the same).
@Suite struct JSONValueDecoderTests {
    enum Color: String, Decodable { case red, green }

    struct Inner: Decodable, Equatable {
        var pushId: Int32
        var sentAt: Int64?
    }

    struct Outer: Decodable, Equatable {
        var name: String
        var ratio: Double
        var small: UInt8
        var flag: Bool
        var color: Color
        var tags: [String]
        var inner: Inner
        var list: [Inner]
        var missing: Int?
        var explicitNull: String?
        var maxVoipPayloadBytes: Int
    }

    static let text = #"""
        {"name":"n","ratio":0.25,"small":255,"flag":true,"color":"green","tags":["a","b"],
         "inner":{"push_id":7},"list":[{"push_id":1,"sent_at":9007199254740993}],
         "explicit_null":null,"max_voip_payload_bytes":5120,"unknown":{"x":[1]}}
        """#

    @Test func decodesLikeFoundationsJSONDecoder() throws {
        let ours = try JSONValueDecoder(convertFromSnakeCase: true).decode(Outer.self, from: Array(Self.text.utf8))
        let reference = JSONDecoder()
        reference.keyDecodingStrategy = .convertFromSnakeCase
        #expect(try reference.decode(Outer.self, from: Data(Self.text.utf8)) == ours)
        #expect(ours.list[0].sentAt == 9_007_199_254_740_993 && ours.missing == nil && ours.explicitNull == nil)
    }

    @Test(arguments: [
        ("push_id", "pushId"), ("max_voip_payload_bytes", "maxVoipPayloadBytes"), ("plain", "plain"),
        ("camelCase", "camelCase"), ("_leading", "_leading"), ("__a_b__", "__aB__"), ("a__b", "aB"),
        ("URL_value", "urlValue"), ("max_VOIP", "maxVoip"), ("_", "_"), ("", ""), ("a_1", "a1"),
    ])
    func snakeCaseKeysMatchFoundationsRule(_ key: String, _ camel: String) throws {
        struct Probe: Decodable { var keys: [String] }
        // Foundation's conversion, observed through a decoder's allKeys.
        struct Keys: Decodable {
            var all: [String]
            init(from decoder: any Decoder) throws {
                all = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue)
            }
        }
        let text = "{\(JSONString.quoted(key)):1}"
        let reference = JSONDecoder()
        reference.keyDecodingStrategy = .convertFromSnakeCase
        #expect(try reference.decode(Keys.self, from: Data(text.utf8)).all == [camel])
        #expect(
            try JSONValueDecoder(convertFromSnakeCase: true).decode(Keys.self, from: Array(text.utf8)).all == [camel])
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Numbers: integral literals in range; a fraction or an out-of-range value is refused by
    /// name, never truncated or wrapped.
    @Test(arguments: [
        ("7", Int32(7) as Int32?, ""), ("1.0", 1, ""), ("1e3", 1000, ""), ("-2147483648", .min, ""),
        ("2147483648", nil, "number out of range for Int32: 2147483648"),
        ("1e99", nil, "number out of range for Int32: 1e99"),
        ("1.5", nil, "not an integer: 1.5"), ("1e999", nil, "number out of range for Int32: 1e999"),
    ])
    func integersAreExact(_ literal: String, _ expected: Int32?, _ error: String) {
        let decoder = JSONValueDecoder(convertFromSnakeCase: true)
        let text = #"{"push_id":\#(literal)}"#
        if let expected {
            #expect((try? decoder.decode(Inner.self, from: Array(text.utf8)))?.pushId == expected)
        } else {
            #expect {
                try decoder.decode(Inner.self, from: Array(text.utf8))
            } throws: { thrown in
                guard case .dataCorrupted(let context)? = thrown as? DecodingError else { return false }
                return context.debugDescription == error && context.codingPath.map(\.stringValue) == ["pushId"]
            }
        }
    }

    @Test func errorsNameThePath() throws {
        let decoder = JSONValueDecoder(convertFromSnakeCase: true)
        #expect {
            try decoder.decode([Inner].self, from: Array(#"[{"push_id":1},{"push_id":"2"}]"#.utf8))
        } throws: { error in
            guard case .typeMismatch(_, let context)? = error as? DecodingError else { return false }
            return context.codingPath.map(\.stringValue) == ["1", "pushId"]
                && context.debugDescription == "expected Int32, found a string"
        }
        #expect {
            try decoder.decode(Inner.self, from: Array(#"{"sent_at":1}"#.utf8))
        } throws: { error in
            guard case .keyNotFound(let key, _)? = error as? DecodingError else { return false }
            return key.stringValue == "pushId"
        }
        #expect {
            try decoder.decode(Inner.self, from: Array(#"{"push_id":null}"#.utf8))
        } throws: { error in
            if case .valueNotFound? = error as? DecodingError { return true }
            return false
        }
        #expect(throws: JSONParseError(.syntax, at: 0, "")) { try decoder.decode(Inner.self, from: Array("{,}".utf8)) }
    }

    @Test func withoutConversionKeysMatchAsWritten() throws {
        #expect(try JSONValueDecoder().decode(Inner.self, from: Array(#"{"pushId":3}"#.utf8)).pushId == 3)
        #expect(throws: DecodingError.self) {
            try JSONValueDecoder().decode(Inner.self, from: Array(#"{"push_id":3}"#.utf8))
        }
    }
}
