import AstraJSON
import CallLoad
import ToolSupport

extension CallLoadOptions {
    /// `astra-call load --merge FILE`: the shards' JSON Lines in, one `load_summary` out
    /// (``CallLoadMerge``). Exit 0 when no merged call failed, 1 when some did, 64 for a line
    /// that is not JSON, no `load_summary` to merge, or call options beside `--merge`.
    static func merge(_ context: ToolContext, path: String) -> ExitCode {
        let arguments = context.arguments
        for key in ["lines", "targets", "calls", "duration", "shard"] where arguments.string(key) != nil {
            context.diagnostics.error("--merge combines finished runs and places no call: drop --\(key)")
            return .usage
        }
        let merge: CallLoadMerge
        do { merge = try CallLoadMerge.read(path) } catch {
            context.diagnostics.error(error.message)
            return error.exitCode
        }
        guard let fields = merge.summary() else {
            context.diagnostics.error("\(InputReader.name(path)): no load_summary event to merge")
            return .usage
        }
        context.output.emit("load_summary", fields, text: CallLoadTally.summaryText(fields))
        return (fields["failed"]?.intValue ?? 0) > 0 ? .failure : .success
    }
}
