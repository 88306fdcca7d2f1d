import Testing

@testable import Torture

/// The declared edits change the Via sent-by and the From tag and not one other octet.
@Suite struct TortureRewriterTests {
    static let rewriter = TortureRewriter(sentBy: "127.0.0.1:40000", tagSuffix: "-x1")

    static func apply(_ name: String) -> (before: [UInt8], after: [UInt8], changes: [TortureChange]) {
        let torture = TortureCatalog.named(name)!
        let before = TortureCorpus.bytes(of: torture)
        let (after, changes) = rewriter.apply(torture.edits, to: before)
        return (before, after, changes)
    }

    @Test func wsinvFoldedViaAndSpacedTag() {
        let (before, after, changes) = Self.apply("wsinv")
        #expect(
            changes == [
                TortureChange(.viaSentBy, from: "192.0.2.2", to: "127.0.0.1:40000"),
                TortureChange(.fromTag, from: "98asjd8", to: "98asjd8-x1"),
            ])
        let text = String(decoding: after, as: UTF8.self)
        #expect(text.contains("Via  : SIP  /   2.0\r\n /UDP\r\n    127.0.0.1:40000;branch=390skdjuw\r\n"))
        #expect(text.contains("tag = 98asjd8-x1\r\n"))
        #expect(after.count == before.count - "192.0.2.2".utf8.count + "127.0.0.1:40000".utf8.count + 3)
    }

    @Test func ipv6SentByWithPortAndCompactForms() {
        let (_, after, changes) = Self.apply("mult-ip-in-header")
        #expect(changes.first == TortureChange(.viaSentBy, from: "[2001:db8::9:1]:6050", to: "127.0.0.1:40000"))
        #expect(String(decoding: after, as: UTF8.self).contains("Via: SIP/2.0/UDP 127.0.0.1:40000;branch="))
        let compact = Array(
            "OPTIONS sip:a@b SIP/2.0\r\nv:SIP/2.0/TCP h.example.com:5070 ;branch=z9hG4bK1\r\nf: <sip:c@d>;TAG=t9\r\n\r\n"
                .utf8)
        let (out, edits) = Self.rewriter.apply([.viaSentBy, .fromTag], to: compact)
        #expect(edits.map(\.from) == ["h.example.com:5070", "t9"])
        #expect(
            String(decoding: out, as: UTF8.self)
                == "OPTIONS sip:a@b SIP/2.0\r\nv:SIP/2.0/TCP 127.0.0.1:40000 ;branch=z9hG4bK1\r\nf: <sip:c@d>;TAG=t9-x1\r\n\r\n"
        )
    }

    @Test func aTagInsideTheURIOrQuotesIsNotTheFromTag() {
        let message = Array(
            "OPTIONS sip:a@b SIP/2.0\r\nFrom: \"x;tag=no\" <sip:c@d;tag=no>\r\nTo: <sip:a@b>\r\n\r\n".utf8)
        let (out, changes) = Self.rewriter.apply([.fromTag], to: message)
        #expect(changes.isEmpty)
        #expect(out == message)
    }

    @Test func responsesAreSentUntouched() {
        for name in ["bcast", "bigcode", "noreason", "scalarlg", "unreason"] {
            let (before, after, changes) = Self.apply(name)
            #expect(changes.isEmpty && before == after, "\(name)")
        }
    }

    /// Every request gets its Via sent-by; outside the two replaced spans the bytes are equal.
    @Test func everyRequestChangesOnlyTheDeclaredSpans() {
        for torture in TortureCatalog.all where !torture.isResponse {
            let (before, after, changes) = Self.apply(torture.name)
            #expect(changes.first?.edit == .viaSentBy, "\(torture.name)")
            var restored = after
            for change in changes.reversed() {
                let to = Array(change.to.utf8)
                let from = Array(change.from.utf8)
                let at = Self.find(to, in: restored)!
                restored.replaceSubrange(at..<(at + to.count), with: from)
            }
            #expect(restored == before, "\(torture.name)")
        }
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i..<(i + needle.count)].elementsEqual(needle) {
            return i
        }
        return nil
    }
}
