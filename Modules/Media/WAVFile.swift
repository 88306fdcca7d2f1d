#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A RIFF/WAVE file with linear PCM (format 1), 8-bit unsigned or 16-bit signed little-endian,
/// any rate and channel count; samples are kept as mono 16-bit (channels are averaged).
public struct WAVFile: Sendable, Hashable {
    public var sampleRate: Int
    /// Mono 16-bit samples.
    public var samples: [Int16]

    public init(sampleRate: Int, samples: [Int16]) {
        self.sampleRate = sampleRate
        self.samples = samples
    }

    /// The sample rates a file may declare: real audio lies well inside, and resampling to
    /// 8 kHz then grows a file's samples at most eightfold.
    public static let sampleRates = 1_000...384_000

    /// `RIFF`, a size, `WAVE`: the first 12 bytes of every WAV file.
    static func hasRIFFWAVEHeader(_ head: ArraySlice<UInt8>) -> Bool {
        head.count >= 12 && head.prefix(4).elementsEqual("RIFF".utf8)
            && head.dropFirst(8).prefix(4).elementsEqual("WAVE".utf8)
    }

    /// Parses a WAV file's bytes. Throws `badWAV`.
    public init(bytes: [UInt8]) throws(MediaError) {
        func u16(_ o: Int) -> Int { Int(bytes[o]) | Int(bytes[o + 1]) << 8 }
        func u32(_ o: Int) -> Int { u16(o) | u16(o + 2) << 16 }
        guard bytes.count >= 12, Self.hasRIFFWAVEHeader(bytes[0..<12]) else {
            throw MediaError(.badWAV, "not RIFF/WAVE")
        }
        var offset = 12
        var format: (channels: Int, rate: Int, bits: Int)?
        var data: Range<Int>?
        while offset + 8 <= bytes.count {
            let size = u32(offset + 4)
            let body = offset + 8
            let end = min(bytes.count, body + size)
            if bytes[offset..<(offset + 4)].elementsEqual("fmt ".utf8) {
                guard size >= 16, body + 16 <= bytes.count else { throw MediaError(.badWAV, "fmt chunk too short") }
                let tag = u16(body)
                guard tag == 1 || tag == 0xFFFE else { throw MediaError(.badWAV, "format \(tag) is not PCM") }
                format = (u16(body + 2), u32(body + 4), u16(body + 14))
            } else if bytes[offset..<(offset + 4)].elementsEqual("data".utf8) {
                data = body..<end
            }
            offset = body + size + (size & 1)
        }
        guard let format, let data else { throw MediaError(.badWAV, "fmt or data chunk missing") }
        guard format.bits == 8 || format.bits == 16, format.channels >= 1 else {
            throw MediaError(.badWAV, "\(format.bits)-bit, \(format.channels) channels unsupported")
        }
        // Resampling to 8 kHz multiplies the samples by 8000 / rate: a header claiming 1 Hz made a
        // 2 KB file 16 MB of audio and seconds of CPU, a 2 MB one an allocation that failed.
        guard Self.sampleRates.contains(format.rate) else {
            throw MediaError(
                .badWAV,
                "sample rate \(format.rate) Hz unsupported (\(Self.sampleRates.lowerBound)–\(Self.sampleRates.upperBound))"
            )
        }
        let frameBytes = format.channels * format.bits / 8
        let frames = data.count / frameBytes
        var out = [Int16](repeating: 0, count: frames)
        for f in 0..<frames {
            var sum = 0
            for c in 0..<format.channels {
                let o = data.lowerBound + f * frameBytes + c * format.bits / 8
                sum += format.bits == 8 ? (Int(bytes[o]) - 128) << 8 : Int(Int16(bitPattern: UInt16(u16(o))))
            }
            out[f] = Int16(sum / format.channels)
        }
        self.init(sampleRate: format.rate, samples: out)
    }

    /// The file bytes: mono PCM at `bitsPerSample` (8 or 16).
    public func serialized(bitsPerSample: Int = 16) -> [UInt8] {
        precondition(bitsPerSample == 8 || bitsPerSample == 16, "WAVFile: 8 or 16 bits")
        let bytesPerSample = bitsPerSample / 8
        let dataSize = samples.count * bytesPerSample
        var out: [UInt8] = []
        out.reserveCapacity(44 + dataSize)
        func le(_ v: Int, _ n: Int) { for i in 0..<n { out.append(UInt8((v >> (8 * i)) & 0xFF)) } }
        out += Array("RIFF".utf8)
        le(36 + dataSize, 4)
        out += Array("WAVEfmt ".utf8)
        le(16, 4)
        le(1, 2)
        le(1, 2)
        le(sampleRate, 4)
        le(sampleRate * bytesPerSample, 4)
        le(bytesPerSample, 2)
        le(bitsPerSample, 2)
        out += Array("data".utf8)
        le(dataSize, 4)
        for s in samples {
            if bitsPerSample == 8 {
                out.append(UInt8((Int(s) >> 8) + 128))
            } else {
                le(Int(UInt16(bitPattern: s)), 2)
            }
        }
        return out
    }

    /// This audio at 8 kHz (for G.711), resampled when needed.
    public func resampled(to rate: Int = 8000) -> WAVFile {
        WAVFile(sampleRate: rate, samples: Resampler.resample(samples, from: sampleRate, to: rate))
    }

    /// Reads a file from disk.
    /// The largest file ``read(path:)`` takes: over an hour of 8 kHz 16-bit mono, so `--play
    /// /dev/zero` or a huge file ends with one line instead of filling memory.
    public static let maxFileBytes = 64 << 20

    public static func read(path: String) throws(MediaError) -> WAVFile {
        guard let file = fopen(path, "rbe") else { throw MediaError(.badWAV, "cannot open \(path)") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if n <= 0 { break }
            // What is not RIFF/WAVE is refused on its first bytes, not after 64 MiB of it.
            if bytes.isEmpty, n >= 12, !Self.hasRIFFWAVEHeader(chunk[0..<12]) {
                throw MediaError(.badWAV, "\(path): not RIFF/WAVE")
            }
            guard bytes.count + n <= maxFileBytes else {
                throw MediaError(.badWAV, "\(path) is larger than the 64 MiB limit for a WAV file")
            }
            bytes += chunk[0..<n]
        }
        return try WAVFile(bytes: bytes)
    }

    /// Writes the file to disk, mode 0600: a recording is a patient's call, readable by its owner
    /// only (an existing regular file is narrowed to 0600 too).
    public func write(path: String, bitsPerSample: Int = 16) throws(MediaError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw MediaError(.badWAV, "cannot create \(path)") }
        var status = stat()
        if fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG { _ = fchmod(fd, 0o600) }
        guard let file = fdopen(fd, "wb") else {
            close(fd)
            throw MediaError(.badWAV, "cannot create \(path)")
        }
        defer { fclose(file) }
        let bytes = serialized(bitsPerSample: bitsPerSample)
        let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        guard written == bytes.count else { throw MediaError(.badWAV, "short write to \(path)") }
    }
}
