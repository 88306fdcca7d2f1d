/// Why a message cannot create, join or be built from a dialog (RFC 3261 §12). Compares equal on
/// ``code``; ``description`` is one log line.
public struct DialogError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Hashable, Sendable {
        /// A header the dialog needs (Call-ID, From, To, CSeq, Contact) is missing.
        case missingHeader
        /// A header the dialog needs does not parse.
        case invalidHeader
        /// From or To has no tag where §12.1 requires one.
        case missingTag
        /// The response cannot create a dialog (not 101–299, or not to an INVITE).
        case notDialogCreating
        /// §12.2.2: the remote CSeq is lower than the last one (answer 500).
        case cseqOutOfOrder
        /// The message does not belong to this dialog (answer 481, §12.2.2).
        case doesNotMatch
        /// The operation is not allowed in the current state.
        case invalidState
    }

    public let code: Code
    public let detail: String
    public let fileID: String
    public let line: Int

    public init(_ code: Code, _ detail: String = "", fileID: String = #fileID, line: Int = #line) {
        self.code = code
        self.detail = detail
        self.fileID = fileID
        self.line = line
    }

    public static func == (lhs: DialogError, rhs: DialogError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String {
        detail.isEmpty ? "dialog error \(code.rawValue)" : "dialog error \(code.rawValue): \(detail)"
    }
}
