import Foundation

/// Test vectors copied byte-exact from /work/shared/vectors (see their README).
enum Vectors {
    static func data(_ name: String) throws -> [UInt8] {
        guard let url = Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Vectors") else {
            throw CocoaError(.fileNoSuchFile)
        }
        return Array(try Data(contentsOf: url))
    }

    static func json() throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(data("ws_vectors.json"))) as! [String: Any]
    }

    static func hex(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        var chars = Array(text.utf8)[...]
        while chars.count >= 2 {
            out.append(UInt8(String(decoding: chars.prefix(2), as: UTF8.self), radix: 16)!)
            chars = chars.dropFirst(2)
        }
        return out
    }
}

/// Splits bytes into chunks: byte by byte, whole, or seeded random sizes ("shuffled" chunking,
/// as swift-nio's ByteToMessageDecoderVerifier does).
enum Chunking: CaseIterable, CustomStringConvertible {
    case whole, byteByByte, random1, random2

    func split(_ bytes: [UInt8]) -> [[UInt8]] {
        switch self {
        case .whole: return [bytes]
        case .byteByByte: return bytes.map { [$0] }
        case .random1, .random2:
            var rng = SplitMix(seed: self == .random1 ? 1 : 2)
            var out: [[UInt8]] = []
            var i = 0
            while i < bytes.count {
                let n = Int(rng.next() % 17) + 1
                out.append(Array(bytes[i..<min(bytes.count, i + n)]))
                i += n
            }
            return out
        }
    }

    var description: String {
        switch self {
        case .whole: "whole"
        case .byteByByte: "byte-by-byte"
        case .random1: "random chunks (seed 1)"
        case .random2: "random chunks (seed 2)"
        }
    }
}

struct SplitMix: RandomNumberGenerator {
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
