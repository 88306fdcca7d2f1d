import SIPCore

/// The RFC 4028 `Session-Expires` header value (§4): `delta-seconds [;refresher=uac|uas]`.
public struct SessionExpires: Sendable, Hashable, CustomStringConvertible {
    /// Which side of the refreshing transaction sends the refreshes (RFC 4028 §4).
    public enum Refresher: String, Sendable, Hashable {
        case uac
        case uas
    }

    public var interval: UInt32
    public var refresher: Refresher?

    public init(interval: UInt32, refresher: Refresher? = nil) {
        self.interval = interval
        self.refresher = refresher
    }

    /// Parses `1800;refresher=uac` (parameters other than `refresher` are ignored).
    public init?(headerValue: String) {
        let parts = headerValue.split(separator: ";", omittingEmptySubsequences: false)
        guard let first = parts.first,
            let interval = UInt32(first.trimmingSpaces), interval > 0
        else { return nil }
        self.interval = interval
        self.refresher = nil
        for part in parts.dropFirst() {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingSpaces.lowercased() == "refresher" else { continue }
            refresher = Refresher(rawValue: pair[1].trimmingSpaces.lowercased())
        }
    }

    public var description: String {
        refresher.map { "\(interval);refresher=\($0.rawValue)" } ?? String(interval)
    }

    /// The `Min-SE` header (RFC 4028 §5).
    public static let minSEHeader = SIPHeaderName("Min-SE")

    /// The Session-Expires of a message, if present and valid.
    static func of(_ headers: SIPHeaders) -> SessionExpires? {
        headers[.sessionExpires].flatMap(SessionExpires.init(headerValue:))
    }

    /// The Min-SE of a message, if present and valid.
    static func minSE(of headers: SIPHeaders) -> UInt32? {
        headers[minSEHeader].flatMap { UInt32($0.split(separator: ";").first?.trimmingSpaces ?? "") }
    }
}

/// A session timer in force (RFC 4028 §7.4, §9, §10).
struct SessionTimer: Sendable, Hashable {
    var interval: UInt32
    var localRefresher: Bool

    /// §7.4 / §9: the refresher sends a refresh at half the interval.
    var refreshDelay: Duration { .seconds(Int64(interval)) / 2 }

    /// §10: without a refresh, BYE at interval − min(32, interval/3) seconds.
    var expiryDelay: Duration {
        let i = Int64(interval)
        return .seconds(i - min(32, i / 3))
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}
