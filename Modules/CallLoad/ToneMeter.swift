import Media
import Synchronization

/// `--expect-tone HZ`: measures how long a tone was heard in the received audio, in 100 ms
/// blocks (Goertzel power at HZ against the block's energy: a clean sine gives ≈ 0.5).
package final class ToneMeter: AudioSink {
    package let frequency: Double
    private let state = Mutex<(pending: [Int16], blocks: Int, toneBlocks: Int)>(([], 0, 0))

    package init(frequency: Double) { self.frequency = frequency }

    package func write(_ frame: [Int16]) {
        state.withLock { state in
            state.pending += frame
            while state.pending.count >= 800 {
                let block = state.pending[0..<800]
                let energy = Goertzel.energy(block)
                state.blocks += 1
                if energy > 250_000, Goertzel.power(block, frequency: frequency, sampleRate: 8000) / energy > 0.3 {
                    state.toneBlocks += 1
                }
                state.pending.removeFirst(800)
            }
        }
    }

    /// Seconds of audio played out, and seconds of it that carried the tone.
    package var seconds: (heard: Double, tone: Double) {
        state.withLock { (Double($0.blocks) / 10, Double($0.toneBlocks) / 10) }
    }
}
