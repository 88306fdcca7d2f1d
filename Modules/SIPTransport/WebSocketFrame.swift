/// One RFC 6455 §5.2 frame: FIN, opcode, optional masking key and the (unmasked) payload.
public struct WebSocketFrame: Sendable, Hashable {
    /// RFC 6455 §5.2 / §11.8 opcodes.
    public enum Opcode: UInt8, Sendable, Hashable {
        case continuation = 0x0
        case text = 0x1
        case binary = 0x2
        case close = 0x8
        case ping = 0x9
        case pong = 0xA

        /// Control frames (§5.5): close, ping, pong — at most 125 bytes, never fragmented.
        public var isControl: Bool { rawValue & 0x8 != 0 }
    }

    public var fin: Bool
    public var opcode: Opcode
    /// The masking key (§5.3), present on every client-to-server frame.
    public var maskingKey: UInt32?
    /// The application data, already unmasked.
    public var payload: [UInt8]

    public init(fin: Bool = true, opcode: Opcode, maskingKey: UInt32? = nil, payload: [UInt8]) {
        self.fin = fin
        self.opcode = opcode
        self.maskingKey = maskingKey
        self.payload = payload
    }

    /// The wire bytes: 7-, 16- or 64-bit payload length (§5.2, minimal form), payload masked
    /// with ``maskingKey`` when present.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(payload.count + 14)
        out.append((fin ? 0x80 : 0) | opcode.rawValue)
        let maskBit: UInt8 = maskingKey == nil ? 0 : 0x80
        let length = payload.count
        if length < 126 {
            out.append(maskBit | UInt8(length))
        } else if length <= 0xFFFF {
            out.append(maskBit | 126)
            out.append(UInt8(length >> 8))
            out.append(UInt8(length & 0xFF))
        } else {
            out.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) {
                out.append(UInt8((UInt64(length) >> UInt64(shift)) & 0xFF))
            }
        }
        if let key = maskingKey {
            let k = Self.keyBytes(key)
            out.append(contentsOf: k)
            for (i, byte) in payload.enumerated() { out.append(byte ^ k[i & 3]) }
        } else {
            out.append(contentsOf: payload)
        }
        return out
    }

    static func keyBytes(_ key: UInt32) -> [UInt8] {
        [UInt8(key >> 24), UInt8((key >> 16) & 0xFF), UInt8((key >> 8) & 0xFF), UInt8(key & 0xFF)]
    }
}

/// RFC 6455 §7.4.1 status codes used by AstraSIP.
public struct WebSocketCloseCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let normal = Self(rawValue: 1000)
    public static let goingAway = Self(rawValue: 1001)
    public static let protocolError = Self(rawValue: 1002)
    public static let unsupportedData = Self(rawValue: 1003)
    /// Never sent: "no status code was present" (§7.4.1).
    public static let noStatus = Self(rawValue: 1005)
    /// Never sent: the connection dropped without a Close frame.
    public static let abnormal = Self(rawValue: 1006)
    public static let invalidPayload = Self(rawValue: 1007)
    public static let policyViolation = Self(rawValue: 1008)
    public static let messageTooBig = Self(rawValue: 1009)
    public static let internalError = Self(rawValue: 1011)

    /// Whether the code may appear in a Close frame (§7.4.1, §7.4.2).
    public var isValidOnWire: Bool {
        switch rawValue {
        case 1000...1003, 1007...1011: true
        case 3000...4999: true
        default: false
        }
    }

    public var description: String { String(rawValue) }
}

/// A WebSocket protocol failure: the close code to send (§7.4.1) and why.
public struct WebSocketProtocolError: Error, Sendable, Hashable, CustomStringConvertible {
    public var closeCode: WebSocketCloseCode
    public var reason: String
    public init(_ closeCode: WebSocketCloseCode, _ reason: String) {
        self.closeCode = closeCode
        self.reason = reason
    }
    public var description: String { "WebSocket \(closeCode): \(reason)" }
}
