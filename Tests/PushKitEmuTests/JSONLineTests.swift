import AstraJSON
import PushKitEmu
import Testing

/// pushsim's line builder writes through the one encoder: same text as the JSONObject, same
/// escaping as every other tool (it used to leave DEL and U+2028/U+2029 raw).
@Suite struct JSONLineTests {
    @Test func builderWritesTheOneEncodersText() {
        var nested = JSONLine()
        nested.add("ok", true)
        var line = JSONLine(event: "push", t: 12)
        line.add("who", "a\u{7F}b\u{2028}c\u{2029}")
        line.add("n", Int64.max)
        line.add("tags", ["x", "y"])
        line.add("inner", object: nested)
        line.add("list", objects: [nested, JSONLine()])
        let expected =
            #"{"event":"push","t":12,"who":"a\u007fb\u2028c\u2029","n":9223372036854775807,"#
            + #""tags":["x","y"],"inner":{"ok":true},"list":[{"ok":true},{}]}"#
        #expect(line.string == expected)
        #expect(line.string == line.object.jsonText)
        #expect(JSONLine.quote("\u{7F}") == JSONString.quoted("\u{7F}"))
    }
}
