import ToolSupport
// astra-torture — the RFC 4475 / RFC 5118 torture messages against a live server (docs/man/astra-torture.md).
// Thin main: ToolSupport parses; the Torture module runs and judges.
import Torture

await ToolMain.run(ToolSpecs.torture) { context in
    try await TortureTool(context: context).run()
}
