import AstraTestSupport
import Foundation
import Provisioning

/// Small helpers for the Provisioning tests: temp files, running real peers (zbarimg,
/// qrencode, python3, identify), fixtures, and photo-like test images.
enum Support {
    /// Runs `tool` (looked up on PATH) with `arguments` to its end, off the cooperative pool.
    static func run(_ tool: String, _ arguments: [String], stdin: Data? = nil) async throws -> ChildProcess.Result {
        try await ChildProcess.run(command: tool, arguments, stdin: stdin)
    }

    /// A fresh temporary directory.
    static func tempDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("astra-qr-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func write(_ bytes: [UInt8], to url: URL) throws { try Data(bytes).write(to: url) }
    static func read(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// A fixture file's path (Fixtures/ is copied as a resource).
    static func fixture(_ name: String) -> String {
        Bundle.module.url(forResource: "Fixtures", withExtension: nil)!.appendingPathComponent(name).path
    }

    /// A deterministic random source for sealing (golden payloads).
    static func counting(_ count: Int) -> [UInt8] { (0..<count).map { UInt8($0 & 0xFF) } }

    /// A photo-like image: the code's raster scaled by `scale`, rotated `degrees`, placed at
    /// (`cx`,`cy`) on a `width`×`height` canvas with a lighting gradient, soft contrast, a little
    /// ±`noise` uniform sensor noise, then a 3×3 box blur (lens and demosaicing softness).
    /// Deterministic for a given `seed`.
    static func photoLike(
        _ codes: [(GrayImage, cx: Double, cy: Double)], width: Int, height: Int,
        scale: Double, degrees: Double, noise: Int, seed: UInt64 = 42
    ) -> GrayImage {
        var canvas = GrayImage(width: width, height: height)
        var state = seed
        func random() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33)
        }
        let angle = degrees * .pi / 180
        let c = cos(angle)
        let s = sin(angle)
        for y in 0..<height {
            for x in 0..<width {
                // Background: uneven lighting from 150 (left) to 215 (right), a little texture.
                var level = 150.0 + 65.0 * Double(x) / Double(width) + Double(((x / 37) ^ (y / 29)) & 7)
                for (code, cx, cy) in codes {
                    // Inverse map: canvas → code raster coordinates.
                    let dx = Double(x) - cx
                    let dy = Double(y) - cy
                    let u = (c * dx + s * dy) / scale + Double(code.width) / 2
                    let v = (-s * dx + c * dy) / scale + Double(code.height) / 2
                    guard u >= 0, v >= 0, u < Double(code.width - 1), v < Double(code.height - 1) else { continue }
                    let x0 = Int(u)
                    let y0 = Int(v)
                    let fx = u - Double(x0)
                    let fy = v - Double(y0)
                    let p = { (xx: Int, yy: Int) in Double(code[xx, yy]) }
                    let sample =
                        p(x0, y0) * (1 - fx) * (1 - fy) + p(x0 + 1, y0) * fx * (1 - fy)
                        + p(x0, y0 + 1) * (1 - fx) * fy + p(x0 + 1, y0 + 1) * fx * fy
                    // Paper is not white and ink is not black: map 0…255 to 45…205, lit like the scene.
                    level = (45 + sample * 160 / 255) * (0.85 + 0.3 * Double(x) / Double(width))
                }
                level += Double(random() % (2 * noise + 1) - noise)
                canvas[x, y] = UInt8(max(0, min(255, level)))
            }
        }
        var blurred = canvas
        for y in 1..<height - 1 {
            for x in 1..<width - 1 {
                var sum = 0
                for yy in y - 1...y + 1 {
                    for xx in x - 1...x + 1 { sum += Int(canvas[xx, yy]) }
                }
                blurred[x, y] = UInt8(sum / 9)
            }
        }
        return blurred
    }
}
