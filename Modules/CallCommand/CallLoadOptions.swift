import CallLoad
import CallSession
import LineRunner
import Media
import SIPCore
import ToolSupport

/// The command lines of the load modes (docs/man/astra-call.md): `astra-call load` and
/// `astra-call answer --load FILE`. Usage errors are `ToolError(.usage)`.
enum CallLoadOptions {
    /// One-call options that have no meaning for many calls at once.
    static let oneCallOnly = [
        "rtp-port", "sdp-port", "dtmf", "duration", "hold-after", "resume-after", "ice-restart-after",
        "expect-tone", "timeout", "stun", "turn", "interactive",
    ]

    /// `answer --load FILE`: the lines and the fleet's options.
    static func fleet(_ context: ToolContext, path: String) throws(ToolError) -> ([LineSetup], CallFleet.Options) {
        let arguments = context.arguments
        for key in oneCallOnly where arguments.string(key) != nil || arguments.flag(key) {
            throw ToolError(.usage, "--\(key) applies to one call, not to answer --load")
        }
        if arguments.flag("auto") { throw ToolError(.usage, "answer --load always keeps answering: drop --auto") }
        let setups = try CallLines.read(path, insecure: arguments.flag(CommonOptions.Key.insecure))
        let tone = arguments.double("tone"), play = arguments.string("play"), echo = arguments.flag("echo")
        let record = arguments.string("record")
        _ = try CallAudio(tone: tone, play: play, echo: echo, record: nil)  // checks the audio options once
        var options = CallFleet.Options { index throws(ToolError) in
            try CallAudio(tone: tone, play: play, echo: echo, record: record.map { numbered($0, index) })
        }
        options.after = arguments.duration("after") ?? .zero
        options.reject = arguments.int("reject")
        try CallRun.Options.parseMedia(arguments, into: &options.call)
        common(arguments, into: &options.call)
        options.mediaAddress = arguments.string("media-address")
        options.verbosity = arguments.count("verbose")
        options.seed = arguments.int(CommonOptions.Key.seed).map { UInt64(truncatingIfNeeded: $0) }
        return (setups, options)
    }

    /// `astra-call load`: the calling lines and the run's options.
    static func load(_ context: ToolContext) throws(ToolError) -> ([LineSetup], CallLoadRun.Options) {
        let arguments = context.arguments
        let insecure = arguments.flag(CommonOptions.Key.insecure)
        var setups: [LineSetup]
        if let path = arguments.string("lines") {
            setups = try CallLines.read(path, insecure: insecure)
        } else {
            setups = [try LineSetup(line: try LineOptions.resolve(arguments), insecure: insecure)]
        }
        if let text = arguments.string("shard") {
            guard arguments.string("lines") != nil else {
                throw ToolError(.usage, "--shard divides the lines of --lines FILE: give --lines")
            }
            let shard = try LoadShard(parsing: text)
            setups = setups.enumerated().filter { shard.takes($0.offset) }.map(\.element)
            guard !setups.isEmpty else { throw ToolError(.usage, "--lines: no lines in shard \(shard)") }
        }
        if arguments.string("calls") != nil && arguments.string("duration") != nil {
            throw ToolError(.usage, "--calls and --duration both end the run: pick one")
        }
        var targets: [String] = []
        if let target = arguments.string("target") { targets.append(target) }
        if let path = arguments.string("targets") {
            if !targets.isEmpty { throw ToolError(.usage, "give a target or --targets FILE, not both") }
            try InputReader.forEachLine(path == "-" ? nil : path, maxLine: .line, maxLines: 100_000) {
                row, _ throws(ToolError) in
                let text = String(decoding: row, as: UTF8.self).trimmingWhitespace
                if !text.isEmpty && !text.hasPrefix("#") { targets.append(text) }
            }
        }
        guard !targets.isEmpty else { throw ToolError(.usage, "load needs a target or --targets FILE") }
        let tone = arguments.double("tone") ?? 440, expect = arguments.double("expect-tone")
        var options = CallLoadRun.Options { () throws(ToolError) in
            try CallAudio(tone: tone, play: nil, echo: false, record: nil, expectTone: expect)
        }
        options.targets = targets
        options.concurrency = arguments.int("concurrency") ?? 10
        options.rate = arguments.double("rate")
        options.calls = arguments.int("calls")
        options.duration = arguments.duration("duration")
        options.runTimeout = arguments.duration("run-timeout")
        options.hold = arguments.duration("hold") ?? .seconds(10)
        options.expectToneShare = arguments.double("expect-tone-share") ?? 0.5
        switch arguments.string("media") ?? "rtp" {
        case "webrtc": options.call.mediaMode = .webRTC
        case "srtp":
            options.call.mediaMode = .rtp
            options.call.srtp = true
        default: options.call.mediaMode = .rtp
        }
        options.call.invite.noAnswerTimeout = arguments.duration("timeout") ?? .seconds(30)
        common(arguments, into: &options.call)
        options.mediaAddress = arguments.string("media-address")
        options.verbosity = arguments.count("verbose")
        options.seed = arguments.int(CommonOptions.Key.seed).map { UInt64(truncatingIfNeeded: $0) }
        return (setups, options)
    }

    /// The user agent and `--rtp-timeout`, as for one call.
    static func common(_ arguments: ParsedArguments, into call: inout CallOptions) {
        call.invite.userAgent = AstraVersion.product("astra-call")
        let rtpTimeout = arguments.duration("rtp-timeout") ?? .seconds(30)
        call.rtpTimeout = rtpTimeout > .zero ? rtpTimeout : nil
    }

    /// `rec.wav` → `rec-7.wav`: one recording per call of a fleet.
    static func numbered(_ path: String, _ index: Int) -> String {
        guard path.hasSuffix(".wav") else { return path + "-\(index)" }
        return String(path.dropLast(4)) + "-\(index).wav"
    }
}

extension String {
    fileprivate var trimmingWhitespace: String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" || c == "\r" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" || c == "\r" { s.removeLast() }
        return String(s)
    }
}
