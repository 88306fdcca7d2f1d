import Foundation

@testable import SIPCore

/// Loads the RFC 4475 / 5118 / 7118 vectors copied byte-exact into `Vectors/`.
enum Vectors {
    struct Entry: Decodable {
        let file: String
        let expect: String
        let parse_ok: [String]
        let expected_handling: String
    }

    struct Manifest: Decodable {
        let messages: [String: Entry]
    }

    static let directory: URL = Bundle.module.url(forResource: "Vectors", withExtension: nil)!

    static let manifest: Manifest = {
        let data = try! Data(contentsOf: directory.appendingPathComponent("manifest.json"))
        return try! JSONDecoder().decode(Manifest.self, from: data)
    }()

    static func bytes(_ file: String) -> [UInt8] {
        Array(try! Data(contentsOf: directory.appendingPathComponent(file)))
    }

    static func message(_ name: String) throws -> SIPMessage {
        try SIPMessage(parsing: bytes(name + ".dat"))
    }

    /// Vectors whose manifest outcome this parser deliberately does not follow, with the reason.
    static let deviations: [String: String] = [
        "ipv6-in-sdp": "RFC 5118 archive form: Content-Length 268 but 242 body octets; a Content-Length larger "
            + "than the datagram is rejected as for RFC 4475 clerr (the derived wire form is accepted)",
        "mult-ip-in-sdp": "RFC 5118 archive form: Content-Length 181 but 180 body octets (see ipv6-in-sdp)",
        "rfc7118_4.1_ws_handshake_request": "HTTP/1.1 WebSocket handshake, not a SIP message",
        "rfc7118_4.1_ws_handshake_response": "HTTP/1.1 WebSocket handshake, not a SIP message",
        "rfc7118_8.1_F1_ws_handshake_request": "HTTP/1.1 WebSocket handshake, not a SIP message",
        "rfc7118_8.1_F2_ws_handshake_response": "HTTP/1.1 WebSocket handshake, not a SIP message",
    ]
}

/// A seeded SplitMix64 so random splits are reproducible.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
