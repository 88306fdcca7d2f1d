/// Bounds that keep the parser and the stream framer from unbounded work or memory on hostile
/// input. Every limit is checked before the bytes it guards are stored. Values are clamped to
/// 0...2**30.
public struct SIPParserLimits: Sendable, Hashable {
    /// Most header lines in one message (each comma-separated line counts once).
    public let maxHeaderCount: Int
    /// Longest start line or (folded) header line, in octets.
    public let maxLineLength: Int
    /// Longest header section (start line, headers and the empty line), in octets.
    public let maxHeaderSectionSize: Int
    /// Largest body, in octets.
    public let maxBodySize: Int

    public init(
        maxHeaderCount: Int = 256, maxLineLength: Int = 16_384,
        maxHeaderSectionSize: Int = 65_536, maxBodySize: Int = 1_048_576
    ) {
        // Offsets inside a header section are stored as Int32; every limit stays far below that.
        let ceiling = 1 << 30
        self.maxHeaderCount = Swift.max(0, Swift.min(maxHeaderCount, ceiling))
        self.maxLineLength = Swift.max(1, Swift.min(maxLineLength, ceiling))
        self.maxHeaderSectionSize = Swift.max(1, Swift.min(maxHeaderSectionSize, ceiling))
        self.maxBodySize = Swift.max(0, Swift.min(maxBodySize, ceiling))
    }

    /// The defaults: 256 headers, 16 KiB lines, 64 KiB header section, 1 MiB body.
    public static let `default` = SIPParserLimits()
}
