import AstraJSON
import Capture
import SIPCore
import SIPTransport
import Synchronization
import ToolSupport

/// `astra-torture` (docs/man/astra-torture.md): reads the command line, runs ``TortureRunner``
/// over each transport in turn, prints a `message` event per message and a `summary` per
/// transport, writes the JUnit and baseline files, and decides the exit code: 3 when the server
/// stopped answering (the run ends there), else 1 on a regression, else 0.
public struct TortureTool: Sendable {
    let context: ToolContext

    public init(context: ToolContext) { self.context = context }

    public func run() async throws(ToolError) -> ExitCode {
        let arguments = context.arguments
        let cases = try selectedCases()
        if arguments.flag("list") {
            for torture in cases { list(torture) }
            return .success
        }
        guard let text = arguments.string("target") else { throw .usage("no target: give the server as HOST[:PORT]") }
        let target = try TortureTarget(parsing: text, transports: arguments.string("transport"))
        let baseline = try arguments.string("baseline").map { path throws(ToolError) in
            let bytes = try InputReader.read(path, limit: .scenario)
            do throws(TortureBaselineError) {
                return try TortureBaseline(parsing: bytes)
            } catch {
                throw ToolError(.usage, "--baseline \(InputReader.name(path)): \(error.message)")
            }
        }
        if let caFile = arguments.string(CommonOptions.Key.caFile) {
            do throws(TransportError) { try TLSOptions.checkCAFile(caFile) } catch {
                throw .usage("--ca-file: \(error.detail)")
            }
        }
        let capture = try await CaptureHub.make(context)
        defer { capture?.close() }
        let ids: any IdentifierSource =
            arguments.int(CommonOptions.Key.seed).map { SeededIdentifierSource(seed: UInt64($0)) }
            ?? SystemIdentifierSource()
        let tagSuffix = "-" + ids.token(length: 6)
        var recorded = TortureBaseline(server: arguments.string("server-name") ?? "")
        var suites: [TortureJUnit.Suite] = []
        var code = ExitCode.success
        for transport in target.transports {
            var options = ConnectionOptions()
            options.keepAlive = nil
            // Answers that do not parse are expected here (servers echo the torture): -v shows them.
            let diagnostics = context.diagnostics
            options.log = TransportLog { level, text in diagnostics.info("transport \(level): \(text)") }
            options.trace = capture?.sipTrace
            options.webSocketPath = arguments.string(CommonOptions.Key.wsPath) ?? "/ws"
            options.tls = TLSOptions(caFile: arguments.string(CommonOptions.Key.caFile), serverName: nil)
            let machine = TortureSequence(
                .init(
                    cases: cases, reliable: transport.isReliable, viaTransport: transport.viaToken,
                    target: target.uriHostPort(transport), wait: .milliseconds(arguments.int("wait") ?? 1000),
                    timeout: .milliseconds(arguments.int("timeout") ?? 2000), tagSuffix: tagSuffix),
                ids: ids)
            let runner = TortureRunner(machine, target: target.flowTarget(transport), options: options, ids: ids)
            let name = transport.rawValue
            context.output.emit(
                "start",
                [
                    "transport": .string(name), "target": .string(target.uriHostPort(transport)),
                    "messages": .int(cases.count),
                ],
                text: "\(name): \(cases.count) messages to \(target.uriHostPort(transport))")
            let collected = Mutex<[(TortureResult, TortureBaseline.Standing)]>([])
            let output = context.output
            let end = await runner.run { result in
                let standing =
                    baseline?.standing(result, transport: name) ?? (result.verdict.matches ? .match : .regression)
                collected.withLock { $0.append((result, standing)) }
                output.emit(
                    "message", TortureReport.fields(result, transport: name, standing: standing),
                    text: TortureReport.text(result, transport: name, standing: standing))
            }
            let results = collected.withLock { $0 }
            var tally = TortureReport.Tally()
            for (_, standing) in results { tally.add(standing) }
            let unsent = Array(cases.dropFirst(results.count))
            suites.append(.init(transport: name, results: results, unsent: unsent, end: end))
            recorded.record(results.map(\.0), transport: name)
            context.output.emit(
                "summary", TortureReport.summary(transport: name, total: cases.count, tally: tally, end: end),
                text: summaryText(name, cases.count, tally, end))
            if case .stopped(_, let reason) = end {
                if let error = await runner.connectError,
                    error.code == TransportError.Code.certificateVerificationFailed
                {
                    context.diagnostics.error(error.description)
                    code = .certificate
                } else {
                    context.diagnostics.error(
                        "\(name): the server stopped answering \(end.whereStopped ?? "") (\(reason))")
                    code = .network
                }
                break
            }
            if tally.regressions > 0 { code = .failure }
        }
        if let path = arguments.string("junit") {
            try OutputFile.save(Array(TortureJUnit.render(suites).utf8), to: path, option: "--junit")
        }
        if let path = arguments.string("write-baseline") {
            try OutputFile.save(Array(recorded.text.utf8), to: path, option: "--write-baseline")
        }
        return code
    }

    /// The catalog, or the `--only` names of it in catalog order.
    func selectedCases() throws(ToolError) -> [TortureCase] {
        guard let only = context.arguments.string("only") else { return TortureCatalog.all }
        let names = only.split(separator: ",").map { String($0).trimmingSpaces }
        for name in names where TortureCatalog.named(name) == nil {
            throw .usage("--only: no message '\(name)' (astra-torture --list shows them)")
        }
        return TortureCatalog.all.filter { names.contains($0.name) }
    }

    func list(_ torture: TortureCase) {
        context.output.emit(
            "case",
            [
                "name": .string(torture.name), "rfc": .string(torture.reference), "title": .string(torture.title),
                "response": .bool(torture.isResponse), "udp": .string(torture.datagram.description),
                "stream": .string(torture.stream.description), "note": .string(torture.note),
            ],
            text: "\(torture.name) (\(torture.reference), \(torture.title)): \(torture.datagram)"
                + (torture.stream == torture.datagram ? "" : "; over a stream \(torture.stream)") + " — \(torture.note)"
        )
    }

    func summaryText(_ transport: String, _ total: Int, _ tally: TortureReport.Tally, _ end: TortureEnd) -> String {
        var text =
            "\(transport): \(tally.sent)/\(total) sent, \(tally.matched) as the RFCs say, \(tally.known) known "
            + "deviations, \(tally.regressions) regressions"
        if let place = end.whereStopped { text += "; the server stopped answering \(place)" }
        return text
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
