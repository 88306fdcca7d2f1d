import AstraJSON
import Testing

@Suite struct JSONValueTests {
    @Test(
        arguments: [
            (JSONValue.null, "null"),
            (true, "true"),
            (false, "false"),
            (0, "0"),
            (-42, "-42"),
            (3600.0, "3600"),
            (0.25, "0.25"),
            (-1.5, "-1.5"),
            (1e-05, "1e-05"),
            (.double(.nan), "null"),
            (.double(.infinity), "null"),
            ("plain", #""plain""#),
            ("quote \" backslash \\ slash /", #""quote \" backslash \\ slash /""#),
            ("tab\tnewline\ncr\r", #""tab\tnewline\ncr\r""#),
            (.string("\u{01}\u{1F}\u{7F}"), #""\u0001\u001f\u007f""#),
            ("héllo ☎️", #""héllo ☎️""#),
            ([], "[]"),
            ([1, "a", nil], #"[1,"a",null]"#),
            ([:], "{}"),
        ] as [(JSONValue, String)])
    func encodesCompactly(_ value: JSONValue, _ expected: String) {
        #expect(value.jsonText == expected)
    }

    @Test func objectsKeepInsertionOrder() {
        let value: JSONValue = ["zeta": 1, "alpha": ["b": true, "a": false], "mid": [1, 2]]
        #expect(value.jsonText == #"{"zeta":1,"alpha":{"b":true,"a":false},"mid":[1,2]}"#)
    }

    @Test func objectSubscriptReplacesInPlaceAndAppends() {
        var object: JSONObject = ["a": 1, "b": 2]
        object["a"] = 10
        object["c"] = 3
        object["b"] = nil
        #expect(object.jsonText == #"{"a":10,"c":3}"#)
        #expect(object["c"] == 3)
        #expect(object["b"] == nil)
    }
}
