import SIPCore

/// The bytes of every message in ``TortureCatalog``: RFC 4475's Appendix A members byte for
/// byte, RFC 5118's in wire form (its archive has bare LF line ends and two messages without
/// the empty line that closes the header section; the wire form changes only those and the
/// Content-Length that no longer matched). Embedded in the program
/// (`TortureCorpus+Bytes.swift`, written by `scripts/gen-torture-corpus.sh` from
/// `Tests/SIPCoreTests/Vectors`), so an installed tool needs no data files.
public enum TortureCorpus {
    /// The message `case` names, as it is sent before any declared edit.
    public static func bytes(of torture: TortureCase) -> [UInt8] {
        let table = torture.source == .rfc4475 ? rfc4475 : rfc5118
        guard let text = table[torture.name], let bytes = Base64URL.decode(text) else {
            preconditionFailure("the corpus has no message \(torture.name): run scripts/gen-torture-corpus.sh")
        }
        return bytes
    }
}
