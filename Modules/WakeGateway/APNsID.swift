import JWT

/// `apns-id` values: RFC 9562 version 4 UUIDs in APNs' uppercase text form. Identifiers, not
/// secrets (the system generator suffices; nothing is protected by them).
enum APNsID {
    static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = Array(SecureBytes.hex(bytes).uppercased())
        return String(hex[0..<8]) + "-" + String(hex[8..<12]) + "-" + String(hex[12..<16]) + "-" + String(hex[16..<20])
            + "-" + String(hex[20..<32])
    }
}
