import CQRencode

/// A QR code symbol as a square of dark/light modules (ISO/IEC 18004), made by libqrencode.
public struct QRMatrix: Sendable, Hashable {
    /// Error-correction level (ISO/IEC 18004 §5.5): L 7 %, M 15 %, Q 25 %, H 30 %.
    public enum Level: String, Sendable, CaseIterable {
        case L, M, Q, H

        /// Parses `L|M|Q|H` (or the lower-case letter), like qrencode's `-l`.
        public init?(letter: String) { self.init(rawValue: letter.uppercased()) }

        var qrencodeLevel: QRecLevel {
            switch self {
            case .L: QR_ECLEVEL_L
            case .M: QR_ECLEVEL_M
            case .Q: QR_ECLEVEL_Q
            case .H: QR_ECLEVEL_H
            }
        }
    }

    /// Modules per side (21 for version 1, +4 per version).
    public let size: Int
    /// The symbol version 1…40.
    public let version: Int
    /// Row-major, true = dark.
    public let modules: [Bool]

    public init(size: Int, version: Int, modules: [Bool]) {
        precondition(modules.count == size * size)
        self.size = size
        self.version = version
        self.modules = modules
    }

    public subscript(x: Int, y: Int) -> Bool { modules[y * size + x] }

    /// Encodes `bytes` in 8-bit mode with the smallest version that fits.
    public static func encode(_ bytes: [UInt8], level: Level = .M) throws(ProvisioningError) -> QRMatrix {
        guard !bytes.isEmpty else { throw ProvisioningError(.badOption, "nothing to encode") }
        guard let code = QRcode_encodeData(Int32(bytes.count), bytes, 0, level.qrencodeLevel) else {
            throw ProvisioningError(
                .tooLarge, "\(bytes.count) bytes do not fit in a QR code at level \(level.rawValue)")
        }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        var modules = [Bool](repeating: false, count: width * width)
        for i in 0..<width * width { modules[i] = code.pointee.data[i] & 1 == 1 }
        return QRMatrix(size: width, version: Int(code.pointee.version), modules: modules)
    }

    /// Encodes UTF-8 text.
    public static func encode(_ text: String, level: Level = .M) throws(ProvisioningError) -> QRMatrix {
        try encode(Array(text.utf8), level: level)
    }
}
