import CallLoad
import CallSession
import LineRunner
import Media
import SIPCore
import ToolSupport

extension CallRun.Options {
    /// The run's options from the parsed command line (docs/man/astra-call.md); usage errors
    /// are `ToolError(.usage)`. Also returns the line and the audio set-up.
    static func parse(_ context: ToolContext) throws(ToolError) -> (LineSetup, CallRun.Options, CallAudio) {
        var options: CallRun.Options
        let audio: CallAudio
        let arguments = context.arguments
        // Seconds as durations: the spec bounds every one (docs/man/astra-call.md), and the
        // conversion is checked, so no flag value can trap.
        func seconds(_ key: String) -> Duration? { arguments.duration(key) }
        let line = try LineOptions.resolve(arguments)
        let setup = try LineSetup(line: line, insecure: arguments.flag(CommonOptions.Key.insecure))
        let mode: CallRun.Mode
        switch context.subcommand {
        case "dial":
            let text = arguments.string("target") ?? ""
            let uriText = text.hasPrefix("sip:") || text.hasPrefix("sips:") ? text : "sip:\(text)@\(line.domain)"
            guard let target = try? SIPURI(parsing: uriText) else {
                throw ToolError(.usage, "target '\(text)' is not a SIP URI")
            }
            mode = .dial(target)
        case "answer":
            mode = .answer(after: seconds("after") ?? .zero, reject: arguments.int("reject"), wait: seconds("timeout"))
        default:
            throw ToolError(.internal, "no handler for '\(context.subcommand ?? "")'")
        }
        options = CallRun.Options(mode: mode)
        if case .dial = mode { options.timeout = seconds("timeout") ?? .seconds(60) }
        options.call.invite.noAnswerTimeout = options.timeout
        options.call.invite.userAgent = AstraVersion.product("astra-call")
        try parseMedia(arguments, into: &options.call)
        let rtpTimeout = seconds("rtp-timeout") ?? .seconds(30)
        options.call.rtpTimeout = rtpTimeout > .zero ? rtpTimeout : nil
        if let digits = arguments.string("dtmf") {
            guard let parsed = DTMFDigit.digits(digits) else {
                throw ToolError(.usage, "--dtmf: '\(digits)' has a non-DTMF key")
            }
            options.dtmf = parsed
        }
        options.keepAnswering = context.subcommand == "answer" && arguments.flag("auto")
        options.dtmfAfter = seconds("dtmf-after") ?? .milliseconds(500)
        options.duration = seconds("duration")
        options.holdAfter = seconds("hold-after")
        options.resumeAfter = seconds("resume-after")
        options.iceRestartAfter = seconds("ice-restart-after")
        if let text = arguments.string("stun") {
            guard let server = try? LineServer(parsing: text, field: "--stun"), (server.port ?? 3478) <= 65535,
                (server.port ?? 3478) > 0
            else { throw ToolError(.usage, "--stun: '\(text)' is not HOST[:PORT]") }
            options.stun = (server.host, UInt16(server.port ?? 3478))
        }
        if let timeout = seconds("stun-timeout") {  // 0.001…10 s (the spec's range)
            options.call.webRTC.ice.gatheringTimeout = timeout
        }
        try parseTURN(arguments, into: &options)
        // ICE options need a call that can be WebRTC: dial offers it only with --media webrtc.
        let media = options.call.mediaMode
        if media == .rtp || media == .auto && context.subcommand == "dial" {
            for key in ["stun", "turn", "ice-restart-after"] where arguments.string(key) != nil {
                throw ToolError(
                    .usage, "--\(key) needs WebRTC media (dial: --media webrtc; answer: webrtc or auto)")
            }
        }
        options.interactive = try interactive(arguments)
        options.mediaAddress = arguments.string("media-address")
        // 1…65535 (the spec's range): the conversions cannot fail.
        options.call.media.localPort = UInt16(clamping: arguments.int("rtp-port") ?? 0)
        options.call.advertisedMediaPort = arguments.int("sdp-port").map { UInt16(clamping: $0) }
        options.verbosity = arguments.count("verbose")
        options.seed = arguments.int(CommonOptions.Key.seed).map { UInt64(truncatingIfNeeded: $0) }
        audio = try CallAudio(
            tone: arguments.double("tone"), play: arguments.string("play"),
            echo: arguments.flag("echo"), record: arguments.string("record"),
            expectTone: arguments.double("expect-tone"))
        options.expectToneShare = arguments.double("expect-tone-share") ?? 0.5
        return (setup, options, audio)
    }

    /// Keys on when asked, or by default when standard input is a terminal.
    static func interactive(_ arguments: ParsedArguments) throws(ToolError) -> Bool {
        let terminal = InputReader.standardInputIsTerminal
        if arguments.flag("interactive") {
            guard !arguments.flag("no-interactive") else {
                throw ToolError(.usage, "--interactive contradicts --no-interactive")
            }
            guard terminal else { throw ToolError(.usage, "--interactive needs a terminal on standard input") }
            return true
        }
        return terminal && !arguments.flag("no-interactive")
    }

    /// `--turn`, `--turn-user`, `--turn-password-file`, `--ice-policy` (RFC 8656, RFC 7065 URI).
    static func parseTURN(_ arguments: ParsedArguments, into options: inout CallRun.Options) throws(ToolError) {
        let policy = ICETransportPolicy(rawValue: arguments.string("ice-policy") ?? "all") ?? .all
        options.call.webRTC.icePolicy = policy
        guard let text = arguments.string("turn") else {
            for key in ["turn-user", "turn-password-file"] where arguments.string(key) != nil {
                throw ToolError(.usage, "--\(key) needs --turn")
            }
            if policy == .relay { throw ToolError(.usage, "--ice-policy relay needs --turn") }
            return
        }
        var rest = Substring(text)
        if rest.lowercased().hasPrefix("turns:") {
            throw ToolError(.usage, "--turn: turns: (TLS) is not supported; use turn:HOST[:PORT]")
        }
        if rest.lowercased().hasPrefix("turn:") { rest = rest.dropFirst(5) }
        if let query = rest.firstIndex(of: "?") {
            guard rest[query...].lowercased() == "?transport=udp" else {
                throw ToolError(.usage, "--turn: only UDP (?transport=udp) is supported")
            }
            rest = rest[..<query]
        }
        guard let server = try? LineServer(parsing: String(rest), field: "--turn"),
            (1...65535).contains(server.port ?? 3478)
        else { throw ToolError(.usage, "--turn: '\(text)' is not turn:HOST[:PORT]") }
        guard let user = arguments.string("turn-user"), !user.isEmpty else {
            throw ToolError(.usage, "--turn needs --turn-user")
        }
        guard let file = arguments.string("turn-password-file") else {
            throw ToolError(.usage, "--turn needs --turn-password-file")
        }
        let password = try InputReader.firstLine(file, limit: .password)
        options.turn = (server.host, UInt16(server.port ?? 3478), user, password)
    }

    /// `--media`, `--srtp`, `--ice`: the media profile (docs/man/astra-call.md).
    /// `--srtp dtls` and `--ice` are spellings of `--media webrtc`: in this tool ICE and
    /// DTLS-SRTP come together, as the WebRTC profile (docs/decisions.md D15).
    static func parseMedia(_ arguments: ParsedArguments, into call: inout CallOptions) throws(ToolError) {
        let srtp = arguments.string("srtp") ?? "off"
        var mode = CallMediaMode(rawValue: arguments.string("media") ?? "auto") ?? .auto
        if srtp == "dtls" || arguments.flag("ice") {
            guard mode != .rtp else { throw ToolError(.usage, "--media rtp contradicts --srtp dtls / --ice") }
            mode = .webRTC
        }
        if mode == .webRTC {
            if srtp == "sdes" { throw ToolError(.usage, "--srtp sdes contradicts --media webrtc (DTLS-SRTP)") }
            if arguments.int("sdp-port") != nil {
                throw ToolError(
                    .usage, "--sdp-port does not apply to --media webrtc (the ICE candidates carry the port)")
            }
        }
        call.mediaMode = mode
        call.srtp = srtp == "sdes"
    }
}
