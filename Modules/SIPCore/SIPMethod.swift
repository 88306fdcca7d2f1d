/// A request method (RFC 3261 §7.1, §27.4; methods are case-sensitive tokens).
public struct SIPMethod: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String

    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    public var description: String { rawValue }

    public static let invite: SIPMethod = "INVITE"
    public static let ack: SIPMethod = "ACK"
    public static let bye: SIPMethod = "BYE"
    public static let cancel: SIPMethod = "CANCEL"
    public static let register: SIPMethod = "REGISTER"
    public static let options: SIPMethod = "OPTIONS"
    public static let prack: SIPMethod = "PRACK"
    public static let subscribe: SIPMethod = "SUBSCRIBE"
    public static let notify: SIPMethod = "NOTIFY"
    public static let publish: SIPMethod = "PUBLISH"
    public static let info: SIPMethod = "INFO"
    public static let refer: SIPMethod = "REFER"
    public static let message: SIPMethod = "MESSAGE"
    public static let update: SIPMethod = "UPDATE"
}
