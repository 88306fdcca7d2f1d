/// Netpbm images (netpbm.sourceforge.net/doc/pgm.html, ppm.html, pbm.html): P1/P4 bitmaps,
/// P2/P5 graymaps (maxval up to 65535), P3/P6 pixmaps (converted to gray with Rec. 601
/// luma); comments (`#`) allowed in the header. Writes binary P5.
public enum NetpbmCodec {
    public static func isNetpbm(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 2 && bytes[0] == UInt8(ascii: "P") && (UInt8(ascii: "1")...UInt8(ascii: "6")).contains(bytes[1])
    }

    public static func decode(_ bytes: [UInt8]) throws(ProvisioningError) -> GrayImage {
        guard isNetpbm(bytes) else { throw ProvisioningError(.notAnImage, "not a PGM/PPM/PBM image") }
        let kind = bytes[1] - UInt8(ascii: "0")
        var i = 2
        func fail(_ why: String) -> ProvisioningError { ProvisioningError(.corruptImage, "P\(kind): \(why)") }
        func skipSpaceAndComments() {
            while i < bytes.count {
                if bytes[i] == UInt8(ascii: "#") {
                    while i < bytes.count, bytes[i] != 0x0A { i += 1 }
                } else if [0x20, 0x09, 0x0A, 0x0D, 0x0B, 0x0C].contains(bytes[i]) {
                    i += 1
                } else {
                    return
                }
            }
        }
        func number() throws(ProvisioningError) -> Int {
            skipSpaceAndComments()
            var value = 0
            var digits = 0
            while i < bytes.count, (0x30...0x39).contains(bytes[i]), digits < 9 {
                value = value * 10 + Int(bytes[i] - 0x30)
                i += 1
                digits += 1
            }
            guard digits > 0 else { throw fail(i >= bytes.count ? "truncated header" : "bad header number") }
            return value
        }
        let width = try number()
        let height = try number()
        let maxval = (kind == 1 || kind == 4) ? 1 : try number()
        guard width > 0, height > 0, width * height <= PNGCodec.maxPixels else {
            throw fail("bad size \(width)×\(height)")
        }
        guard (1...65535).contains(maxval) else { throw fail("bad maxval \(maxval)") }
        let channels = (kind == 3 || kind == 6) ? 3 : 1
        let count = width * height
        // Every sample takes at least one byte of the file (P4: a bit, rows padded to bytes):
        // a header claiming more pixels than the file can hold is refused before anything is
        // allocated for them (a 16-byte `P3 1 55722122 8` asked for 1.3 GB).
        let leastBytes = kind == 4 ? (width + 7) / 8 * height : count * channels
        guard leastBytes <= bytes.count - i else { throw fail("truncated pixel data") }
        var samples = [Int]()
        samples.reserveCapacity(count * channels)
        switch kind {
        case 1, 2, 3:
            for _ in 0..<count * channels {
                if kind == 1 {
                    skipSpaceAndComments()
                    guard i < bytes.count else { throw fail("truncated pixel data") }
                    samples.append(bytes[i] == UInt8(ascii: "1") ? 1 : 0)
                    i += 1
                } else {
                    samples.append(try number())
                }
            }
        case 4:
            i += 1  // one whitespace byte after the header
            let rowBytes = (width + 7) / 8
            guard i + rowBytes * height <= bytes.count else { throw fail("truncated pixel data") }
            for y in 0..<height {
                for x in 0..<width {
                    samples.append(Int(bytes[i + y * rowBytes + x / 8] >> (7 - UInt8(x % 8)) & 1))
                }
            }
        default:
            i += 1
            let sampleBytes = maxval > 255 ? 2 : 1
            guard i + count * channels * sampleBytes <= bytes.count else { throw fail("truncated pixel data") }
            for k in 0..<count * channels {
                let o = i + k * sampleBytes
                samples.append(sampleBytes == 2 ? Int(bytes[o]) << 8 | Int(bytes[o + 1]) : Int(bytes[o]))
            }
        }
        var pixels = [UInt8](repeating: 0, count: count)
        for p in 0..<count {
            let level: Int
            if kind == 1 || kind == 4 {
                level = samples[p] == 1 ? 0 : 255  // PBM: 1 is black
            } else if channels == 3 {
                let r = samples[p * 3]
                let g = samples[p * 3 + 1]
                let b = samples[p * 3 + 2]
                level = (299 * r + 587 * g + 114 * b) * 255 / (1000 * maxval)
            } else {
                level = samples[p] * 255 / maxval
            }
            pixels[p] = UInt8(clamping: level)
        }
        return GrayImage(width: width, height: height, pixels: pixels)
    }

    /// Binary PGM (P5, maxval 255).
    public static func encodePGM(_ image: GrayImage) -> [UInt8] {
        Array("P5\n\(image.width) \(image.height)\n255\n".utf8) + image.pixels
    }
}
