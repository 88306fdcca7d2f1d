/// Why a byte sequence is not an acceptable SIP message, and where.
///
/// Thrown by the whole-message parser (`SIPMessage(parsing:)`), by the stream
/// framer (``SIPStreamFramer/next()``) and by the typed header and URI parsers. Two errors are
/// equal when their ``code`` is equal; ``offset`` and ``headerName`` are context for one clear
/// log line (see ``description``).
public struct SIPParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The input is empty, or contains only CRLFs (RFC 3261 §7.5).
        case emptyMessage
        /// The start line is neither a Request-Line nor a Status-Line (RFC 3261 §7.1, §7.2).
        case invalidStartLine
        /// The method is not an RFC 3261 §25.1 `token`.
        case invalidMethod
        /// The Request-URI is malformed (RFC 3261 §19.1, §25.1; RFC 5118 §4.2).
        case invalidRequestURI
        /// The SIP-Version is not `SIP/1*DIGIT.1*DIGIT` (RFC 3261 §7.1).
        case invalidVersion
        /// The Status-Code is not three digits in 100...699 (RFC 3261 §7.2, §21).
        case invalidStatusCode
        /// The reason phrase contains CR or LF (RFC 3261 §25.1 `Reason-Phrase`).
        case invalidReasonPhrase
        /// A header line has no colon, an empty or non-token name, or starts with whitespace
        /// where no header precedes it (RFC 3261 §7.3.1).
        case invalidHeaderLine
        /// A CR not followed by LF in the header section.
        case bareCarriageReturn
        /// A typed header value does not match its RFC 3261 §25.1 grammar.
        case invalidHeaderValue
        /// A URI in a header value is malformed (RFC 3261 §19.1).
        case invalidURI
        /// A number is out of range (e.g. CSeq above 2**32-1, Max-Forwards above 255;
        /// RFC 3261 §8.1.1.5, §8.1.1.6; RFC 4475 §3.1.2.4).
        case numberOutOfRange
        /// Content-Length is not a non-negative decimal (RFC 3261 §20.14; RFC 4475 §3.1.2.3).
        case invalidContentLength
        /// Two Content-Length headers disagree (RFC 4475 §3.4.4).
        case conflictingContentLength
        /// Content-Length is missing on a stream transport (RFC 3261 §18.3, §20.14).
        case missingContentLength
        /// The message ends before Content-Length octets of body (RFC 4475 §3.1.2.2).
        case truncatedBody
        /// The datagram ends inside the header section (no line terminator).
        case unterminatedHeaderSection
        /// A configured ``SIPParserLimits`` value was exceeded.
        case tooManyHeaders
        /// A start line or header line is longer than ``SIPParserLimits/maxLineLength``.
        case lineTooLong
        /// The header section is longer than ``SIPParserLimits/maxHeaderSectionSize``.
        case headerSectionTooLarge
        /// The body is longer than ``SIPParserLimits/maxBodySize``.
        case bodyTooLarge
    }

    /// What is wrong.
    public var code: Code
    /// Byte offset from the first byte of the message (after any leading CRLFs; for the framer,
    /// of the message being framed) where the problem was found.
    public var offset: Int
    /// The header name as written, when the problem is inside a header.
    public var headerName: String?
    /// A short free-form detail.
    public var detail: String?

    public init(_ code: Code, offset: Int, headerName: String? = nil, detail: String? = nil) {
        self.code = code
        self.offset = offset
        self.headerName = headerName
        self.detail = detail
    }

    public static func == (lhs: SIPParseError, rhs: SIPParseError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String {
        var text = "SIP parse error \(code.rawValue) at byte \(offset)"
        if let headerName { text += " in header '\(headerName)'" }
        if let detail { text += ": \(detail)" }
        return text
    }
}
