import Media
import Synchronization
import ToolSupport

/// The audio a call sends and where the received audio goes (--tone, --play, --echo, --record).
package struct CallAudio {
    package var source: any AudioSource = SilenceSource()
    package var sink: any AudioSink = NullSink()
    /// Kept to write the recording at the end (--record).
    package var recording: RecordingSink?
    package var recordPath: String?
    /// --expect-tone: the meter on the received audio.
    package var toneMeter: ToneMeter?

    package init(tone: Double?, play: String?, echo: Bool, record: String?, expectTone: Double? = nil) throws(ToolError) {
        let bridge = echo ? EchoBridge() : nil
        if let tone {
            guard tone > 0 && tone < 4000 else { throw ToolError(.usage, "--tone must be between 0 and 4000 Hz") }
            source = ToneGenerator(frequencies: [tone])
        } else if let play {
            do {
                source = BufferSource(samples: try WAVFile.read(path: play).resampled(to: 8000).samples)
            } catch where error.code == .badWAV {
                throw ToolError(
                    .usage, "--play \(play) is not a WAV file astra-call can play (\(error.detail)): give a PCM "
                        + "WAV, mono or stereo, 16-bit (e.g. sox in.mp3 -r 8000 -c 1 -b 16 out.wav)")
            } catch {
                throw ToolError(.usage, "--play \(play): \(error)")
            }
        } else if let bridge {
            source = bridge
        }
        var sinks: [any AudioSink] = []
        if let bridge { sinks.append(bridge) }
        if let record {
            let recording = RecordingSink()
            self.recording = recording
            recordPath = record
            sinks.append(recording)
        }
        if let expectTone {
            guard expectTone > 0 && expectTone < 4000 else {
                throw ToolError(.usage, "--expect-tone must be between 0 and 4000 Hz")
            }
            let meter = ToneMeter(frequency: expectTone)
            toneMeter = meter
            sinks.append(meter)
        }
        if !sinks.isEmpty { sink = TeeSink(sinks: sinks) }
    }

    /// Writes the recording (16-bit PCM, 8 kHz mono WAV).
    package func finish() throws(ToolError) {
        guard let recording, let recordPath else { return }
        do {
            try WAVFile(sampleRate: 8000, samples: recording.samples).write(path: recordPath)
        } catch {
            throw ToolError(.failed, "--record \(recordPath): \(error)")
        }
    }
}

/// --echo: what is played out is sent back, one frame later.
final class EchoBridge: AudioSource, AudioSink {
    private let queue = Mutex<[Int16]>([])

    func read(into frame: inout [Int16]) -> Bool {
        queue.withLock { queue in
            let n = min(frame.count, queue.count)
            for i in frame.indices { frame[i] = i < n ? queue[i] : 0 }
            queue.removeFirst(n)
        }
        return true
    }

    func write(_ frame: [Int16]) {
        queue.withLock { queue in
            queue += frame
            if queue.count > 8000 { queue.removeFirst(queue.count - 8000) }  // at most 1 s behind
        }
    }
}

/// Several sinks fed the same frames.
struct TeeSink: AudioSink {
    var sinks: [any AudioSink]
    mutating func write(_ frame: [Int16]) {
        for i in sinks.indices { sinks[i].write(frame) }
    }
}
