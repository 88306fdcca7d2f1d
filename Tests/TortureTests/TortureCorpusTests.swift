import AstraTestSupport
import Testing

@testable import Torture

/// The corpus the tool carries is the RFCs' bytes: every embedded message equals its file in
/// Tests/SIPCoreTests/Vectors (RFC 4475 archive members; RFC 5118 in wire form), and the oracle
/// has one row per message with a section.
@Suite struct TortureCorpusTests {
    static let vectors = SIPCorpus.load(
        RepositoryRoot.appending(SIPCorpus.repositoryDirectory).path)

    static func file(_ name: String) -> [UInt8]? { vectors.first { $0.name == name + ".dat" }?.bytes }

    @Test func everyEmbeddedMessageIsTheFileByteForByte() throws {
        // SIPCorpus lists the top directory first, then derived/rfc5118_wire: the wire form wins.
        for torture in TortureCatalog.all {
            let files = Self.vectors.filter { $0.name == torture.name + ".dat" }
            let expected = try #require(torture.source == .rfc4475 ? files.first : files.last, "\(torture.name)")
            #expect(TortureCorpus.bytes(of: torture) == expected.bytes, "\(torture.name)")
        }
    }

    @Test func theCatalogCoversBothArchives() {
        let names = TortureCatalog.all.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(TortureCatalog.all.filter { $0.source == .rfc4475 }.count == 49)  // 50 members but `test`
        #expect(TortureCatalog.all.filter { $0.source == .rfc5118 }.count == 12)
        #expect(Set(TortureCorpus.rfc4475.keys) == Set(TortureCatalog.rfc4475.map(\.name)))
        #expect(Set(TortureCorpus.rfc5118.keys) == Set(TortureCatalog.rfc5118.map(\.name)))
        #expect(TortureCatalog.named("test") == nil)
    }

    @Test func responsesAreTheMessagesThatStartWithTheVersion() {
        for torture in TortureCatalog.all {
            let starts = TortureCorpus.bytes(of: torture).starts(with: Array("SIP/2.0 ".utf8))
            #expect(torture.isResponse == starts, "\(torture.name)")
        }
        #expect(
            TortureCatalog.all.filter(\.isResponse).map(\.name).sorted() == [
                "bcast", "bigcode", "noreason", "scalarlg", "unreason",
            ])
    }

    @Test func sectionsAndExpectationsFromTheRFCs() throws {
        #expect(TortureCatalog.named("wsinv")?.reference == "RFC 4475 §3.1.1.1")
        #expect(TortureCatalog.named("ipv6-bad")?.reference == "RFC 5118 §4.2")
        #expect(TortureCatalog.named("badvers")?.datagram == .status([505]))
        #expect(TortureCatalog.named("mismatch02")?.datagram == .status([501, 400]))
        #expect(TortureCatalog.named("bext01")?.datagram == .status([420], header: "Unsupported"))
        let clerr = try #require(TortureCatalog.named("clerr"))
        #expect(clerr.expectation(reliable: false) == .status([400]))
        #expect(clerr.expectation(reliable: true) == .closed)
        #expect(TortureCatalog.named("mcl01")?.stream == .closed)
        // §3.1.1: every valid request is handled; the two responses are dropped.
        for torture in TortureCatalog.rfc4475 where torture.section.hasPrefix("3.1.1.") {
            #expect(torture.datagram == (torture.isResponse ? .dropped : .handled), "\(torture.name)")
        }
        // RFC 5118: only §4.2 is rejected.
        #expect(TortureCatalog.rfc5118.filter { $0.datagram != .handled }.map(\.name) == ["ipv6-bad"])
    }
}
