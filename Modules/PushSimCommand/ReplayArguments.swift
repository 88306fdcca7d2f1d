import ToolSupport

/// The arguments of this command line that a printed replay command (`fuzz_failure`'s and a field
/// `scenario` line's `replay`) must repeat to reproduce the failure: the client under test and
/// the settings that change the run, as the user typed them.
func replayArguments(_ arguments: ParsedArguments) -> [String] {
    var words: [String] = []
    if let command = arguments.string("client-cmd") {
        words += ["--client-cmd", command]
        if arguments.wasGiven("client-timeout-ms"), let ms = arguments.string("client-timeout-ms") {
            words += ["--client-timeout-ms", ms]
        }
    } else {
        words += ["--policy", arguments.string("policy") ?? "correct"]
    }
    for option in ["strike-limit", "apns-delay", "cold-launch", "loss-percent"] where arguments.wasGiven(option) {
        if let value = arguments.string(option) { words += ["--" + option, value] }
    }
    return words
}
