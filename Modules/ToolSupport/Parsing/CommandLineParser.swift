/// Parses a command line against a root ``CommandSpec``.
///
/// Supports subcommands, positional arguments, `--name value`, `--name=value`, `-o value`,
/// `-ovalue`, flag clusters (`-vv`, `-vk`), counted flags, repeatable options, the `--`
/// terminator and typed values. Errors are ``ToolError/Code/usage`` with a one-line message
/// such as `option -t: expected one of PNG, SVG, got 'JPG'`.
public struct CommandLineParser: Sendable {
    public let root: CommandSpec

    public init(_ root: CommandSpec) { self.root = root }

    /// Parses `arguments` (without the program name).
    public func parse(_ arguments: [String]) throws(ToolError) -> ParseOutcome {
        if let early = try earlyOutcome(arguments) { return early }
        var state = ParseState(command: root)
        var index = 0
        while index < arguments.count {
            let token = arguments[index]
            index += 1
            if state.afterTerminator {
                state.positionals.append(token)
            } else if token == "--" {
                state.afterTerminator = true
            } else if token.hasPrefix("--") {
                try parseLong(token, arguments, &index, &state)
            } else if token.hasPrefix("-") && token.count > 1 && !Self.looksNumeric(token) {
                try parseShortCluster(token, arguments, &index, &state)
            } else if state.positionals.isEmpty && !state.command.subcommands.isEmpty {
                guard let sub = state.command.subcommand(token) else {
                    throw .usage("unknown subcommand '\(token)' (expected one of \(Self.names(state.command)))")
                }
                state.command = sub
                state.path.append(token)
            } else {
                state.positionals.append(token)
            }
        }
        if !state.command.subcommands.isEmpty {
            let tool = ([root.name] + state.path).joined(separator: " ")
            throw .usage("missing subcommand (expected one of \(Self.names(state.command)); see '\(tool) --help')")
        }
        try assignPositionals(&state)
        return .run(ParsedArguments(commandPath: state.path, spec: state.command, values: state.values))
    }

    // MARK: - Help, version, manual

    /// `--help`/`-h` anywhere before `--` wins, then `help <subcommand>`, `--version`, `--generate-manual`,
    /// `--generate-completion=<shell>`.
    private func earlyOutcome(_ arguments: [String]) throws(ToolError) -> ParseOutcome? {
        let beforeTerminator = arguments.prefix { $0 != "--" }
        if beforeTerminator.contains("--help") || beforeTerminator.contains("-h") {
            return .help(commandPath: subcommandPath(in: Array(beforeTerminator)))
        }
        if !root.subcommands.isEmpty, beforeTerminator.first == "help" {
            let rest = Array(beforeTerminator.dropFirst())
            guard root.command(at: rest) != nil else {
                throw .usage(
                    "unknown subcommand '\(rest.joined(separator: " "))' (expected one of \(Self.names(root)))")
            }
            return .help(commandPath: rest)
        }
        if beforeTerminator.contains("--version") { return .version }
        for token in beforeTerminator where token.hasPrefix(BuiltinOptions.generateManual) {
            let rest = token.dropFirst(BuiltinOptions.generateManual.count)
            if rest.isEmpty { return .manual(.troff) }
            if rest.first == "=", let format = ManualFormat(rawValue: String(rest.dropFirst())) {
                return .manual(format)
            }
        }
        for token in beforeTerminator where token.hasPrefix(BuiltinOptions.generateCompletion) {
            let shell = String(token.dropFirst(BuiltinOptions.generateCompletion.count))
            guard let known = CompletionShell(rawValue: shell) else {
                throw .usage(
                    "option --generate-completion: expected one of \(CompletionShell.allCases.map(\.rawValue).joined(separator: ", ")), got '\(shell)'")
            }
            return .completion(known)
        }
        return nil
    }

    /// The subcommand names found in order among the tokens (best effort, for `--help`).
    private func subcommandPath(in tokens: [String]) -> [String] {
        var command = root
        var path: [String] = []
        for token in tokens {
            if let sub = command.subcommand(token) {
                path.append(token)
                command = sub
            }
        }
        return path
    }

    // MARK: - Options

    private func parseLong(_ token: String, _ arguments: [String], _ index: inout Int, _ state: inout ParseState)
        throws(ToolError)
    {
        let body = token.dropFirst(2)
        let name: String
        let inline: String?
        if let equals = body.firstIndex(of: "=") {
            name = String(body[..<equals])
            inline = String(body[body.index(after: equals)...])
        } else {
            name = String(body)
            inline = nil
        }
        guard let option = state.command.options.first(where: { $0.long == name }) else {
            throw .usage("unknown option \(token.prefix { $0 != "=" })\(suggestion(for: name, in: state.command))")
        }
        let spelled = "--" + name
        if case .optionalValue(let kind) = option.kind {
            // `--sip-trace ladder` as people type it: a following word that is one of the
            // option's choices is its value (it can be no argument's: no AOR is "ladder").
            var value = inline
            if value == nil, case .choice(let choices) = kind, index < arguments.count, choices.contains(arguments[index]) {
                value = arguments[index]
                index += 1
            }
            state.record(option, try value.map { raw throws(ToolError) in try validated(raw, kind, "option \(spelled)") } ?? "")
            return
        }
        guard case .value(let kind) = option.kind else {
            if inline != nil { throw .usage("option \(spelled): does not take a value") }
            state.record(option, "")
            return
        }
        let raw: String
        if let inline {
            raw = inline
        } else {
            raw = try takeValue(spelled, arguments, &index)
        }
        try state.record(option, validated(raw, kind, "option \(spelled)"))
    }

    private func parseShortCluster(
        _ token: String, _ arguments: [String], _ index: inout Int, _ state: inout ParseState
    ) throws(ToolError) {
        var rest = Substring(token.dropFirst())
        while let letter = rest.first {
            rest = rest.dropFirst()
            guard let option = state.command.options.first(where: { $0.short == letter }) else {
                let owner = state.command.subcommands.first { $0.options.contains { $0.short == letter } }
                let hint = owner.map { " (it is an option of '\(root.name) \($0.name)': put it after the subcommand)" }
                throw .usage("unknown option -\(letter)\(hint ?? "")")
            }
            let spelled = "-\(letter)"
            guard case .value(let kind) = option.kind else {
                state.record(option, "")
                continue
            }
            let raw: String
            if !rest.isEmpty {
                raw = String(rest.hasPrefix("=") ? rest.dropFirst() : rest)
            } else {
                raw = try takeValue(spelled, arguments, &index)
            }
            try state.record(option, validated(raw, kind, "option \(spelled)"))
            return
        }
    }

    /// The next token as an option's value; `-` and negative numbers are values, other dashes are not.
    private func takeValue(_ spelled: String, _ arguments: [String], _ index: inout Int) throws(ToolError) -> String {
        guard index < arguments.count else { throw .usage("option \(spelled): missing value") }
        let next = arguments[index]
        if next.hasPrefix("-") && next != "-" && !Self.looksNumeric(next) {
            throw .usage("option \(spelled): missing value (write \(spelled)=\(next) if the value starts with '-')")
        }
        index += 1
        return next
    }

    private func validated(_ raw: String, _ kind: ValueKind, _ what: String) throws(ToolError) -> String {
        switch kind.validate(raw) {
        case .success(let value): return value
        case .failure(let error): throw .usage("\(what): \(error.reason)")
        }
    }

    private func suggestion(for name: String, in command: CommandSpec) -> String {
        if let owner = command.subcommands.first(where: { $0.options.contains { $0.long == name } }) {
            return " (it is an option of '\(root.name) \(owner.name)': put it after the subcommand)"
        }
        let candidates = command.options.compactMap { $0.isHidden ? nil : $0.long }
        let best = candidates.map { ($0, Self.editDistance($0, name)) }.min { $0.1 < $1.1 }
        guard let best, best.1 <= 2, best.1 < name.count else { return "" }
        return " (did you mean --\(best.0)?)"
    }

    // MARK: - Positionals

    private func assignPositionals(_ state: inout ParseState) throws(ToolError) {
        let specs = state.command.arguments
        var remaining = state.positionals[...]
        for (position, argument) in specs.enumerated() {
            let neededLater = specs[(position + 1)...].reduce(0) { $0 + $1.minimumCount }
            let available = max(0, remaining.count - neededLater)
            let take: Int
            switch argument.arity {
            case .required, .optional: take = min(1, available)
            case .zeroOrMore, .oneOrMore: take = available
            }
            if take < argument.minimumCount { throw .usage("missing argument <\(argument.name)>") }
            for raw in remaining.prefix(take) {
                let value = try validated(raw, argument.kind, "argument <\(argument.name)>")
                state.values[argument.name, default: []].append(value)
            }
            remaining = remaining.dropFirst(take)
        }
        if let extra = remaining.first { throw .usage("unexpected argument '\(extra)'") }
    }

    // MARK: - Helpers

    private static func names(_ command: CommandSpec) -> String {
        command.subcommands.map(\.name).joined(separator: ", ")
    }

    /// `-5`, `-0.25`: negative numbers, which are values rather than options.
    static func looksNumeric(_ token: String) -> Bool {
        token.count > 1 && Double(token) != nil
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            previous = current
        }
        return previous[b.count]
    }
}

/// The parser's working state for one command line.
private struct ParseState {
    var command: CommandSpec
    var path: [String] = []
    var values: [String: [String]] = [:]
    var positionals: [String] = []
    var afterTerminator = false

    init(command: CommandSpec) { self.command = command }

    mutating func record(_ option: OptionSpec, _ value: String) {
        switch option.kind {
        case .flag: values[option.key] = [""]
        case .counter: values[option.key, default: []].append("")
        case .optionalValue: values[option.key] = [value]
        case .value:
            if option.isRepeatable {
                values[option.key, default: []].append(value)
            } else {
                values[option.key] = [value]
            }
        }
    }
}
