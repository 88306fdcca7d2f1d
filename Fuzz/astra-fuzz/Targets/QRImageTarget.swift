import Provisioning

/// Image files as astra-qr decode reads them: PNG through libpng's simplified API (the C glue
/// in ``PNGCodec``), PGM/PPM through ``NetpbmCodec``, then zbar over the gray pixels
/// (``QRScanner``) and the payload parser on what it finds. Seeds: QR codes of the seed lines
/// rendered by our own encoder (libqrencode) as PNG and PGM.
///
/// Images over 4 megapixels are decoded but not scanned (zbar's time grows with the area; the
/// decoder's own bomb guard is what is under test there).
///
/// Invariants: a decoded image has `width × height` pixels; a code found in an image goes
/// through the payload parser without trapping.
enum QRImageTarget {
    static let target = FuzzTarget(
        name: "qr-image",
        summary: "PNG (libpng glue) and Netpbm decoding, zbar scan, payload parse of what it finds",
        maxLength: 65_536, seeds: seeds, run: run)

    static func run(_ bytes: [UInt8]) {
        guard let image = try? ImageReader.decode(bytes) else { return }
        invariant(
            image.width > 0 && image.height > 0 && image.pixels.count == image.width * image.height,
            "decoded image size mismatch")
        guard image.pixels.count <= 4_000_000, let codes = try? QRScanner.scan(image) else { return }
        for code in codes { _ = try? ProvisioningPayload.line(from: String(decoding: code, as: UTF8.self)) }
    }

    static func seeds() -> [[UInt8]] {
        var seeds: [[UInt8]] = []
        for (i, text) in QRPayloadTarget.seeds().prefix(4).enumerated() {
            guard let matrix = try? QRMatrix.encode(text, level: .M) else { continue }
            let image = QRRenderer.raster(matrix, moduleSize: i == 0 ? 2 : 1, margin: 2)
            if let png = try? PNGCodec.encode(image) { seeds.append(png) }
            if i < 2 { seeds.append(NetpbmCodec.encodePGM(image)) }
        }
        seeds.append(Array("P2\n3 2\n255\n0 128 255\n255 128 0\n".utf8))
        seeds.append(Array("P6\n1 1\n255\n".utf8) + [10, 20, 30])
        return seeds
    }
}
