import Glibc
import SIPCore
import SIPTransport
import Synchronization
import ToolSupport

/// Where a tool's captured packets go: the `--sip-trace` text or ladder on stderr, a
/// `--sip-trace-file` (JSON Lines), a `--pcap` file, a `--hep` collector. The IO shell over the
/// pure formats (``SIPLadder``, ``PcapWriter``, ``HEPEncoder``, the trace line).
///
/// Every SIP message goes through the one redactor (``Redaction``) once, before any export
/// sees it; so no file, datagram or line carries a password, digest response, SDES key, ICE
/// password or push token. RTP and RTCP go to the pcap file only. Safe to call from any
/// thread: one lock orders the records (each file, and the stderr trace, is written in the
/// order packets arrived, with times that never go back).
public final class CaptureHub: Sendable {
    /// What the user asked for.
    public struct Configuration: Sendable {
        /// `--sip-trace` (full messages) or `--sip-trace=ladder` on stderr.
        public var stderrStyle: TraceStyle?
        public var traceFile: String?
        public var pcapFile: String?
        /// `--pcap-rtp-payload`: keep the audio in the pcap file.
        public var rtpPayload = false
        /// `--hep udp:HOST:PORT`, resolved.
        public var hep: SocketAddress?
        public var hepEncoder = HEPEncoder()
        /// Red for failures in the stderr ladder (stderr is a terminal).
        public var color = false

        public init() {}

        /// Whether anything wants packets.
        public var isEmpty: Bool { stderrStyle == nil && traceFile == nil && pcapFile == nil && hep == nil }
    }

    /// The two `--sip-trace` styles.
    public enum TraceStyle: String, Sendable, CaseIterable {
        /// Every message in full (the default).
        case full
        /// One ladder line per message.
        case ladder
    }

    private struct State {
        var traceFile: Int32?
        var pcapFile: Int32?
        var pcap = PcapWriter()
        var hep: UDPBatchSocket?
        var hepFailures = 0
        var ladder = SIPLadder()
        var ladderText: LadderText?
        var start: CapturedPacket.Time?
        /// The latest time written: no record goes back before it.
        var latest: CapturedPacket.Time?
        var closed = false

        /// `time`, or the latest written when another thread's packet, stamped a few µs
        /// later than this one, took the lock first: the files keep the order the lock saw
        /// (the transports record a send before it leaves and an arrival after it came), and
        /// pcap time never runs backwards.
        mutating func inOrder(_ time: CapturedPacket.Time) -> CapturedPacket.Time {
            let kept = latest.map { time < $0 ? $0 : time } ?? time
            latest = kept
            return kept
        }
    }

    public let configuration: Configuration
    private let state: Mutex<State>
    private let diagnostics: Diagnostics?

    /// Opens the files (created 0600, truncated) and the HEP socket.
    public init(_ configuration: Configuration, diagnostics: Diagnostics? = nil) throws(CaptureError) {
        self.configuration = configuration
        self.diagnostics = diagnostics
        var state = State()
        state.pcap = PcapWriter(rtpPayload: configuration.rtpPayload)
        do throws(CaptureError) {
            if let path = configuration.traceFile { state.traceFile = try Self.create(path, "--sip-trace-file") }
            if let path = configuration.pcapFile {
                let fd = try Self.create(path, "--pcap")
                state.pcapFile = fd
                try Self.write(fd, PcapWriter.fileHeader(), path: path)
            }
            if let target = configuration.hep {
                do { state.hep = try UDPBatchSocket(connectedTo: target, batch: 1) } catch {
                    throw CaptureError(.hepTarget, "--hep \(target): \(error)")
                }
            }
        } catch {
            for fd in [state.traceFile, state.pcapFile].compactMap({ $0 }) { Glibc.close(fd) }
            throw error
        }
        self.state = Mutex(state)
    }

    deinit { close() }

    /// The hook to give the transports (nil when nothing wants SIP).
    public var sipTrace: SIPTrace? {
        guard !configuration.isEmpty else { return nil }
        return SIPTrace { [self] message in record(message) }
    }

    /// Whether RTP/RTCP is wanted (a pcap file).
    public var wantsMedia: Bool { configuration.pcapFile != nil }

    /// One SIP message from a transport.
    public func record(_ message: SIPTrace.Message) {
        var packet = CapturedPacket(message, redacted: Redaction.redact(bytes: message.bytes))
        state.withLock { state in
            guard !state.closed else { return }
            packet.time = state.inOrder(packet.time)
            if configuration.stderrStyle == .full {
                FileDescriptorSink.standardError.write(SIPTraceFormatter.format(message))
            }
            let start = state.start ?? packet.time
            state.start = start
            if configuration.stderrStyle == .ladder { ladder(packet, &state) }
            if let fd = state.traceFile, let path = configuration.traceFile {
                let line = packet.traceLine(since: start, originalLength: message.bytes.count) + "\n"
                report(.trace, &state) { () throws(CaptureError) in try Self.write(fd, Array(line.utf8), path: path) }
            }
            let wire = packet.forDissectors
            if let fd = state.pcapFile, let path = configuration.pcapFile {
                let records = state.pcap.records(wire)
                report(.pcap, &state) { () throws(CaptureError) in try Self.write(fd, records, path: path) }
            }
            if let socket = state.hep {
                let callID = (try? SIPMessage(parsing: wire.bytes))?.headers.callID
                if let datagram = configuration.hepEncoder.packet(wire, correlationID: callID) {
                    do throws(TransportError) { try socket.send([datagram]) } catch {
                        state.hepFailures += 1
                        if state.hepFailures == 1 {
                            diagnostics?.warning(
                                "--hep \(socket.remote): cannot send to the collector (\(error.reason)): is it "
                                    + "listening there? Further failures are not reported")
                        }
                    }
                }
            }
        }
    }

    /// One RTP or RTCP packet of a call (plaintext, after SRTP): to the pcap file.
    public func record(media packet: CapturedPacket) {
        guard configuration.pcapFile != nil else { return }
        var packet = packet
        state.withLock { state in
            guard !state.closed, let fd = state.pcapFile, let path = configuration.pcapFile else { return }
            packet.time = state.inOrder(packet.time)
            let records = state.pcap.records(packet)
            report(.pcap, &state) { () throws(CaptureError) in try Self.write(fd, records, path: path) }
        }
    }

    /// Closes the files and the socket; later records are dropped.
    public func close() {
        state.withLock { state in
            guard !state.closed else { return }
            state.closed = true
            for fd in [state.traceFile, state.pcapFile].compactMap({ $0 }) { Glibc.close(fd) }
            state.hep?.close()
        }
    }

    private func ladder(_ packet: CapturedPacket, _ state: inout State) {
        let (step, newLanes) = state.ladder.add(packet)
        var text = ""
        if state.ladderText == nil || newLanes > 0 {
            state.ladderText = LadderText(lanes: state.ladder.diagram.lanes, color: configuration.color,
                                          width: FileDescriptorSink.standardError.layoutWidth)
            text += state.ladderText!.header()
        }
        text += state.ladderText!.line(step)
        FileDescriptorSink.standardError.write(text)
    }

    private enum File { case trace, pcap }

    /// A failed write is reported once and stops that file (a full disk must neither spam
    /// stderr nor stop the call).
    private func report(_ file: File, _ state: inout State, _ write: () throws(CaptureError) -> Void) {
        do throws(CaptureError) { try write() } catch {
            diagnostics?.warning(error.message + "; no more is written to it")
            switch file {
            case .trace:
                state.traceFile.map { _ = Glibc.close($0) }
                state.traceFile = nil
            case .pcap:
                state.pcapFile.map { _ = Glibc.close($0) }
                state.pcapFile = nil
            }
        }
    }

    static func create(_ path: String, _ option: String) throws(CaptureError) -> Int32 {
        do { return try OutputFile.create(path, option: option) } catch { throw CaptureError(.file, error.message) }
    }

    static func write(_ fd: Int32, _ bytes: [UInt8], path: String) throws(CaptureError) {
        do { try OutputFile.write(fd, bytes, path: path) } catch { throw CaptureError(.file, error.message) }
    }
}
