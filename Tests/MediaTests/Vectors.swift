import Foundation

/// Loads a vector file copied byte-exact from /work/shared/vectors.
enum Vectors {
    static func data(_ name: String) throws -> [UInt8] {
        guard let url = Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Vectors") else {
            throw VectorError.missing(name)
        }
        return [UInt8](try Data(contentsOf: url))
    }

    static func json(_ name: String) throws -> [String: Any] {
        let bytes = try data(name)
        guard let object = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            throw VectorError.missing(name)
        }
        return object
    }

    enum VectorError: Error { case missing(String) }
}

func hexBytes(_ hex: String) -> [UInt8] {
    var out: [UInt8] = []
    var chars = Array(hex.utf8)
    if chars.count % 2 == 1 { chars.insert(UInt8(ascii: "0"), at: 0) }
    var i = 0
    while i < chars.count {
        out.append(UInt8(String(decoding: chars[i..<(i + 2)], as: UTF8.self), radix: 16)!)
        i += 2
    }
    return out
}
