import Foundation
import Provisioning
import SIPCore
import Testing

/// Encode → decode in-process, and round trips with the real neighbours (zbarimg, qrencode,
/// an independent Python PNG reader, ImageMagick identify). Real-peer tests: they need
/// zbar-tools, qrencode, python3 (scripts/debian-packages.txt) and fail, not skip, without them.
@Suite struct QRRoundTripTests {
    static let line = PayloadTests.line

    func decodeOne(_ bytes: [UInt8], key: SealKey? = nil) throws -> Line {
        let outcomes = try DecodeCommand.decode(imageBytes: bytes, options: .init(files: [], key: key))
        try #require(outcomes.count == 1)
        guard case .line(let line, _) = outcomes[0] else {
            Issue.record("expected a line, got \(outcomes[0])")
            throw ProvisioningError(.notALine, "")
        }
        return line
    }

    @Test(arguments: [QRRenderer.Format.png, .pgm])
    func encodeThenDecodeInProcess(format: QRRenderer.Format) throws {
        let out = try EncodeCommand.run(line: Self.line, options: .init(format: format))
        #expect(try decodeOne(out.bytes) == Self.line)
    }

    @Test func textFormatsDrawTheSymbol() throws {
        let matrix = try QRMatrix.encode("sip:alice@example.com", level: .L)
        #expect(matrix.size == 21 + 4 * (matrix.version - 1))
        let ascii = String(decoding: try QRRenderer.render(matrix, format: .ascii), as: UTF8.self)
        let rows = ascii.split(separator: "\n")
        #expect(rows.count == matrix.size + 4 && rows[2].hasPrefix("    ##############"))
        let utf8 = String(decoding: try QRRenderer.render(matrix, format: .utf8), as: UTF8.self)
        #expect(utf8.split(separator: "\n").count == (matrix.size + 4 + 1) / 2)
        let ansi = String(decoding: try QRRenderer.render(matrix, format: .ansi), as: UTF8.self)
        #expect(ansi.contains("\u{1B}[40m") && ansi.hasSuffix("\u{1B}[0m\n"))
        let svg = String(decoding: try QRRenderer.render(matrix, format: .svg, moduleSize: 4), as: UTF8.self)
        let n = matrix.size + 8
        #expect(svg.contains("viewBox=\"0 0 \(n) \(n)\"") && svg.contains("width=\"\(4 * n)\""))
        #expect(throws: ProvisioningError(.badOption, "")) {
            try QRRenderer.render(matrix, format: .png, moduleSize: 0)
        }
    }

    @Test func tooMuchTextIsTooLarge() {
        #expect(throws: ProvisioningError(.tooLarge, "")) {
            try QRMatrix.encode(String(repeating: "x", count: 3000), level: .H)
        }
    }

    // MARK: Real neighbours

    @Test func zbarimgReadsOurPNG() async throws {
        let dir = try Support.tempDirectory()
        let out = try EncodeCommand.run(line: Self.line, options: .init(format: .png, level: .M, moduleSize: 4))
        let file = dir.appendingPathComponent("line.png")
        try Support.write(out.bytes, to: file)
        let result = try await Support.run("zbarimg", ["--raw", "-q", "-Sbinary", file.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.text.trimmingCharacters(in: .newlines) == out.payload)
    }

    @Test(arguments: [
        "sip:1002@pbx.example.com", "astra1:u=1001;d=example.com;t=wss;s=pbx.example.com:8089",
        #"{"username":"4711","password":"pw","host":"pbx.example.com:5080"}"#,
    ])
    func qrencodeOutputDecodes(payload: String) async throws {
        let dir = try Support.tempDirectory()
        let file = dir.appendingPathComponent("q.png")
        let made = try await Support.run("qrencode", ["-o", file.path, "-s", "3", "-m", "4", payload])
        #expect(made.status == 0, "\(made.stderr)")
        let expected = try ProvisioningPayload.line(from: payload).0
        #expect(try decodeOne(try Support.read(file.path)) == expected)
        // qrencode's PNG is 1-bit palette; its 8-bit-per-pixel form through -t PNG32 is RGBA.
        let rgba = dir.appendingPathComponent("q32.png")
        #expect(try await Support.run("qrencode", ["-t", "PNG32", "-o", rgba.path, payload]).status == 0)
        #expect(try decodeOne(try Support.read(rgba.path)) == expected)
    }

    @Test func independentPythonReaderOpensOurPNG() async throws {
        let dir = try Support.tempDirectory()
        let matrix = try QRMatrix.encode(CompactPayload.encode(Self.line), level: .M)
        let raster = QRRenderer.raster(matrix, moduleSize: 3, margin: 4)
        let file = dir.appendingPathComponent("ours.png")
        try Support.write(try QRRenderer.render(matrix, format: .png, moduleSize: 3, margin: 4), to: file)
        let result = try await Support.run("python3", [Support.fixture("png_tool.py"), "read", file.path])
        #expect(result.status == 0, "\(result.stderr)")
        let firstLine = result.stdout.prefix(while: { $0 != 0x0A })
        #expect(String(decoding: firstLine, as: UTF8.self) == "\(raster.width) \(raster.height)")
        let pgm = Array(result.stdout.dropFirst(firstLine.count + 1))
        #expect(pgm == NetpbmCodec.encodePGM(raster), "pixels differ from the raster we encoded")
    }

    @Test func imageMagickIdentifiesOurPNG() async throws {
        let dir = try Support.tempDirectory()
        let file = dir.appendingPathComponent("ours.png")
        let out = try EncodeCommand.run(line: Self.line, options: .init(moduleSize: 2, margin: 4))
        try Support.write(out.bytes, to: file)
        let result = try await Support.run("identify", ["-format", "%m %w %h %[colorspace]", file.path])
        #expect(result.status == 0, "\(result.stderr)")
        let side = (4 * out.version + 17 + 8) * 2
        #expect(result.text == "PNG \(side) \(side) Gray")
    }

    /// Every PNG colour type and depth, plain and Adam7-interlaced, written by the Python tool.
    @Test(arguments: ["gray1", "gray8", "gray16", "rgb8", "rgb16", "rgba8", "graya8", "palette"], [false, true])
    func decodesEveryPNGFlavour(mode: String, interlaced: Bool) async throws {
        let dir = try Support.tempDirectory()
        let out = try EncodeCommand.run(line: Self.line, options: .init(format: .pgm, moduleSize: 3))
        let pgm = dir.appendingPathComponent("in.pgm")
        let png = dir.appendingPathComponent("out.png")
        try Support.write(out.bytes, to: pgm)
        let made = try await Support.run(
            "python3",
            [Support.fixture("png_tool.py"), "write", mode, pgm.path, png.path]
                + (interlaced ? ["--interlace"] : []))
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try decodeOne(try Support.read(png.path)) == Self.line)
    }

    @Test func decodesPlainAndBinaryNetpbm() throws {
        let matrix = try QRMatrix.encode(CompactPayload.encode(Self.line))
        let raster = QRRenderer.raster(matrix, moduleSize: 2)
        var p2 = "P2\n# ascii graymap\n\(raster.width) \(raster.height)\n15\n"
        p2 += raster.pixels.map { String(Int($0) * 15 / 255) }.joined(separator: " ")
        #expect(try decodeOne(Array(p2.utf8)) == Self.line)
        var p6 = Array("P6\n\(raster.width) \(raster.height)\n255\n".utf8)
        for p in raster.pixels { p6 += [p, p / 2 + 100, p] }
        #expect(try decodeOne(p6) == Self.line)
    }

    @Test func severalCodesInOneImage() throws {
        let a = QRRenderer.raster(try QRMatrix.encode("sip:1001@example.com"), moduleSize: 4)
        let b = QRRenderer.raster(try QRMatrix.encode("sip:1002@example.com"), moduleSize: 4)
        let image = Support.photoLike(
            [(a, 200, 200), (b, 560, 220)], width: 800, height: 450, scale: 1, degrees: 0,
            noise: 4)
        let outcomes = try DecodeCommand.decode(imageBytes: try PNGCodec.encode(image), options: .init(files: []))
        let users = outcomes.compactMap { outcome -> String? in
            if case .line(let line, _) = outcome { return line.user }
            return nil
        }
        #expect(users.sorted() == ["1001", "1002"])
    }

    /// A "photo" of a printed code: scaled ×2.6, rotated 7°, uneven light, noise ±18, off-centre
    /// on a 1600×1200 canvas — and a sealed one at −4°.
    @Test func photoLikeImagesStillDecode() throws {
        let out = try EncodeCommand.run(line: Self.line, options: .init(format: .pgm, level: .M, moduleSize: 3))
        let raster = try NetpbmCodec.decode(out.bytes)
        let photo = Support.photoLike(
            [(raster, 900, 520)], width: 1600, height: 1200, scale: 2.6, degrees: 7,
            noise: 18)
        #expect(try decodeOne(try PNGCodec.encode(photo)) == Self.line)

        let key = SealKey.passphrase("on paper")
        let sealed = try EncodeCommand.run(
            line: Self.line,
            options: .init(
                format: .pgm, moduleSize: 3, seal: key,
                kdf: .scrypt(logN: 12, r: 8, p: 1)))
        let sealedPhoto = Support.photoLike(
            [(try NetpbmCodec.decode(sealed.bytes), 700, 600)], width: 1600,
            height: 1200, scale: 2.2, degrees: -4, noise: 12, seed: 7)
        #expect(try decodeOne(try PNGCodec.encode(sealedPhoto), key: key) == Self.line)
    }
}
