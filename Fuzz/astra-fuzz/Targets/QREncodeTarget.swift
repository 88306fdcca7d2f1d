import Provisioning
import SIPCore

/// `astra-qr encode` then `astra-qr decode` on any line a file can hold: the line JSON is read,
/// written as a compact payload, encoded by libqrencode (``QRMatrix``), rendered and written as
/// PNG by libpng, read back by libpng, scanned by zbar and parsed again — every C library of the
/// QR path, with the input choosing the content, the error-correction level and the rendering.
/// Seeds: the seed lines.
///
/// Invariants: whatever fits in a code comes back from the image byte for byte and parses to the
/// same line; every rendering format renders.
enum QREncodeTarget {
    static let target = FuzzTarget(
        name: "qr-encode",
        summary: "line → compact payload → libqrencode → PNG (libpng) → zbar → line, byte for byte",
        maxLength: 4096, dictionary: "json",
        seeds: seeds, run: run)

    static func run(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let control = input.byte()
        guard let line = try? Line(json: input.rest()) else { return }
        let payload = CompactPayload.encode(line)
        let level = QRMatrix.Level.allCases[Int(control & 3) % QRMatrix.Level.allCases.count]
        guard let matrix = try? QRMatrix.encode(payload, level: level) else { return }
        invariant(matrix.modules.count == matrix.size * matrix.size, "QR matrix size mismatch")
        let format = QRRenderer.Format.allCases[Int(control >> 2) % QRRenderer.Format.allCases.count]
        invariant(
            (try? QRRenderer.render(matrix, format: format, moduleSize: 1 + Int(control >> 5))) != nil,
            "\(format) rendering failed")
        guard let png = try? PNGCodec.encode(QRRenderer.raster(matrix, moduleSize: 2, margin: 4)),
            let image = try? ImageReader.decode(png)
        else { fatalError("invariant broken: our own QR image does not round-trip through PNG") }
        let codes = (try? QRScanner.scan(image)) ?? []
        invariant(
            codes.contains(Array(payload.utf8)),
            "zbar did not read back the code we encoded (\(payload.utf8.count) bytes)")
        let decoded = try? ProvisioningPayload.line(from: payload).0
        invariant(decoded == line, "the scanned payload does not parse to the same line")
    }

    static func seeds() -> [[UInt8]] {
        LineJSONTarget.seeds().enumerated().map { [UInt8($0.offset * 37 & 0xFF)] + $0.element }
    }
}
