import Foundation
import Provisioning
import SIPCore
import Testing

/// `astra-qr decode` on bad input: each case gives one clear stderr line and the documented
/// exit code (docs/man/astra-qr.md: 64 unreadable input, 4 no code, 1 code but not a line).
@Suite struct BadInputTests {
    let dir: URL

    init() throws { dir = try Support.tempDirectory() }

    func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        let url = dir.appendingPathComponent(name)
        try Support.write(bytes, to: url)
        return url.path
    }

    func decode(_ files: [String], key: SealKey? = nil) -> QRCommandResult {
        DecodeCommand.run(.init(files: files, key: key)) { try Support.read($0) }
    }

    func linePNG(_ line: Line = PayloadTests.line, seal: SealKey? = nil) throws -> [UInt8] {
        try EncodeCommand.run(line: line, options: .init(seal: seal, kdf: .scrypt(logN: 12, r: 8, p: 1))).bytes
    }

    @Test func goodImageExitsZeroWithExactlyTheLineJSON() throws {
        let result = decode([try file("ok.png", try linePNG())])
        #expect(result.exit == .ok)
        #expect(String(decoding: result.stdout, as: UTF8.self) == PayloadTests.line.jsonString() + "\n")
        #expect(result.diagnostics.isEmpty)
    }

    @Test func nonImageIsUsageError() throws {
        let result = decode([try file("notes.txt", Array("just some text\n".utf8))])
        #expect(result.exit == .usage)
        #expect(result.diagnostics == ["astra-qr: \(dir.path)/notes.txt: not an image (expected PNG, PGM or PPM)"])
    }

    @Test func truncatedPNGIsUsageError() throws {
        let png = try linePNG()
        let result = decode([try file("cut.png", Array(png.prefix(png.count / 2)))])
        #expect(result.exit == .usage)
        #expect(result.diagnostics.count == 1)
        #expect(result.diagnostics[0].hasPrefix("astra-qr: \(dir.path)/cut.png: PNG: "))
        #expect(result.stdout.isEmpty)
    }

    @Test func missingFileIsUsageError() {
        let result = decode(["/nonexistent/x.png"])
        #expect(result.exit == .usage)
        #expect(result.diagnostics.count == 1 && result.diagnostics[0].contains("cannot read"))
    }

    @Test func imageWithoutACodeExitsFour() throws {
        let blank = Support.photoLike([], width: 640, height: 480, scale: 1, degrees: 0, noise: 10)
        let result = decode([try file("blank.png", try PNGCodec.encode(blank))])
        #expect(result.exit == .noCode)
        #expect(result.diagnostics == ["astra-qr: \(dir.path)/blank.png: no QR code found in the image"])
    }

    @Test func codeThatIsNotALineExitsOne() throws {
        let matrix = try QRMatrix.encode("hello world")
        let result = decode([try file("hello.png", try QRRenderer.render(matrix, format: .png))])
        #expect(result.exit == .invalidLine)
        #expect(result.diagnostics.count == 1)
        #expect(result.diagnostics[0].contains("hello.png: the code holds text of 11 characters, which is not a line"))
        let invalid = try QRMatrix.encode("astra1:u=1001;d=example.com;s=pbx:99999")
        let second = decode([try file("port.png", try QRRenderer.render(invalid, format: .png))])
        #expect(second.exit == .invalidLine)
        #expect(
            second.diagnostics == ["astra-qr: \(dir.path)/port.png: line: port 99999 out of range 1…65535 (server)"])
    }

    /// A near miss of the compact form (a wrong prefix) still holds a password: the error shows
    /// the code's scheme and length only, never its text.
    @Test func codeThatIsNotALineShowsOnlyItsSchemeAndLength() throws {
        let secret = "Pw" + "9f2e" + "Kq71"
        for text in ["ASTRA:v=1;u=1001;p=\(secret);d=127.0.0.1", "\(secret) 1001", "line u=1001 p=\(secret)"] {
            let matrix = try QRMatrix.encode(text)
            let result = decode([try file("near.png", try QRRenderer.render(matrix, format: .png))])
            #expect(result.exit == .invalidLine)
            #expect(result.diagnostics.count == 1)
            #expect(!result.diagnostics[0].contains(secret))
            #expect(!result.diagnostics[0].contains("1001"))
        }
        let near = try QRMatrix.encode("ASTRA:v=1;u=1001;p=\(secret)")
        let named = decode([try file("near.png", try QRRenderer.render(near, format: .png))])
        #expect(named.diagnostics.first?.contains("the code holds \"ASTRA:…\" (") == true)
    }

    @Test func sealedCodeWithWrongPassphraseExitsOne() throws {
        let path = try file("sealed.png", try linePNG(seal: .passphrase("right one")))
        let wrong = decode([path], key: .passphrase("wrong one"))
        #expect(wrong.exit == .invalidLine)
        #expect(
            wrong.diagnostics == [
                "astra-qr: \(path): wrong passphrase or key, the sealed password did not open "
                    + "(AES-256-GCM authentication failed)"
            ])
        #expect(wrong.stdout.isEmpty)
        let right = decode([path], key: .passphrase("right one"))
        #expect(right.exit == .ok)
        #expect(String(decoding: right.stdout, as: UTF8.self) == PayloadTests.line.jsonString() + "\n")
        let none = decode([path])
        #expect(none.exit == .ok)
        #expect(none.diagnostics.count == 1 && none.diagnostics[0].contains("the password is sealed"))
        #expect(String(decoding: none.stdout, as: UTF8.self).contains("\"password_sealed\":\"$s1$scrypt$"))
    }

    @Test func worstOutcomeWinsAcrossFiles() throws {
        let good = try file("good.png", try linePNG())
        let blank = try file("blank.png", try PNGCodec.encode(GrayImage(width: 50, height: 50)))
        #expect(decode([good, blank]).exit == .noCode)
        let hello = try file("h.png", try QRRenderer.render(try QRMatrix.encode("hello"), format: .png))
        #expect(decode([good, blank, hello]).exit == .invalidLine)
        let junk = try file("junk.bin", [1, 2, 3])
        let all = decode([good, blank, hello, junk])
        #expect(all.exit == .usage)
        #expect(all.diagnostics.count == 3)
        #expect(decode([]).exit == .usage)
    }

    @Test func diagnosticsNeverContainThePassword() throws {
        let password = try #require(PayloadTests.line.password)
        let bad = Line(user: "1001", password: password, domain: "example.com")
        let payload = CompactPayload.encode(bad) + ";s=pbx:0"
        let path = try file("p.png", try QRRenderer.render(try QRMatrix.encode(payload), format: .png))
        let result = decode([path, try file("sealed.png", try linePNG(seal: .passphrase("a")))], key: .passphrase("b"))
        #expect(result.diagnostics.count == 2)
        for line in result.diagnostics { #expect(!line.contains(password)) }
    }
}
