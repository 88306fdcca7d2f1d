// bench-qr: astra-qr decode time for a 1920×1080 PNG holding one code, and encode time.
// Prints ONE JSON object on stdout (scripts/bench.sh). Medians of repeated runs, one thread.
import Provisioning
import SIPCore

let line = Line(
    displayName: "Alice", user: "1001", password: "correct-horse-battery", domain: "pbx.example.com",
    server: LineServer(host: "pbx.example.com", port: 8089), transport: .wss, wsPath: "/ws")
let clock = ContinuousClock()

func milliseconds(_ d: Duration) -> Double {
    Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

func rounded(_ v: Double) -> Double { (v * 1000).rounded() / 1000 }

// The scene: a code at 6 px/module in the middle of a light-gray 1920×1080 frame with a gradient.
let code = QRRenderer.raster(try QRMatrix.encode(CompactPayload.encode(line), level: .M), moduleSize: 6)
var frame = GrayImage(width: 1920, height: 1080)
for y in 0..<frame.height {
    for x in 0..<frame.width { frame[x, y] = UInt8(170 + 60 * x / frame.width) }
}
let ox = (frame.width - code.width) / 2
let oy = (frame.height - code.height) / 2
for y in 0..<code.height {
    for x in 0..<code.width { frame[ox + x, oy + y] = code[x, y] }
}
let png = try PNGCodec.encode(frame)

var decodeTimes: [Double] = []
var readTimes: [Double] = []
var scanTimes: [Double] = []
var encodeTimes: [Double] = []
var sealedTimes: [Double] = []
let options = DecodeCommand.Options(files: [])
for _ in 0..<15 {
    let t0 = clock.now
    let outcomes = try DecodeCommand.decode(imageBytes: png, options: options)
    decodeTimes.append(milliseconds(t0.duration(to: clock.now)))
    guard outcomes.count == 1, case .line(let decoded, _) = outcomes[0], decoded == line else {
        fatalError("bench-qr: the 1920×1080 frame did not decode to the line")
    }
    let t1 = clock.now
    let image = try ImageReader.decode(png)
    let t2 = clock.now
    _ = try QRScanner.scan(image)
    let t3 = clock.now
    readTimes.append(milliseconds(t1.duration(to: t2)))
    scanTimes.append(milliseconds(t2.duration(to: t3)))
}
var encodedBytes = 0
for _ in 0..<50 {
    let t0 = clock.now
    let out = try EncodeCommand.run(line: line, options: .init(format: .png, level: .M, moduleSize: 3))
    encodeTimes.append(milliseconds(t0.duration(to: clock.now)))
    encodedBytes = out.bytes.count
}
for _ in 0..<3 {
    let t0 = clock.now
    _ = try EncodeCommand.run(line: line, options: .init(format: .png, seal: .passphrase("bench")))
    sealedTimes.append(milliseconds(t0.duration(to: clock.now)))
}
print(
    "{\"benchmark\":\"bench-qr\",\"metric\":\"decode_ms_1920x1080_png\",\"value\":\(rounded(median(decodeTimes))),"
        + "\"unit\":\"ms\",\"decode_ms\":\(rounded(median(decodeTimes))),"
        + "\"decode_png_read_ms\":\(rounded(median(readTimes))),\"decode_zbar_scan_ms\":\(rounded(median(scanTimes))),"
        + "\"encode_ms\":\(rounded(median(encodeTimes))),\"encode_sealed_scrypt_ms\":\(rounded(median(sealedTimes))),"
        + "\"image\":\"1920x1080 gray PNG, \(png.count) bytes, one code at 6 px/module\","
        + "\"encoded_png_bytes\":\(encodedBytes),\"runs\":{\"decode\":15,\"encode\":50,\"sealed\":3},"
        + "\"statistic\":\"median\",\"threads\":1}")
