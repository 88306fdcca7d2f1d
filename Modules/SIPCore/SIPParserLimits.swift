/// Bounds that keep the parser and the stream framer from unbounded work or memory on hostile
/// input. Every limit is checked before the bytes it guards are stored.
public struct SIPParserLimits: Sendable, Hashable {
    /// Most header lines in one message (each comma-separated line counts once).
    public var maxHeaderCount: Int
    /// Longest start line or (folded) header line, in octets.
    public var maxLineLength: Int
    /// Longest header section (start line, headers and the empty line), in octets.
    public var maxHeaderSectionSize: Int
    /// Largest body, in octets.
    public var maxBodySize: Int

    public init(maxHeaderCount: Int = 256, maxLineLength: Int = 16_384,
                maxHeaderSectionSize: Int = 65_536, maxBodySize: Int = 1_048_576) {
        self.maxHeaderCount = maxHeaderCount
        self.maxLineLength = maxLineLength
        self.maxHeaderSectionSize = maxHeaderSectionSize
        self.maxBodySize = maxBodySize
    }

    /// The defaults: 256 headers, 16 KiB lines, 64 KiB header section, 1 MiB body.
    public static let `default` = SIPParserLimits()
}
