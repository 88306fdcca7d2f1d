/// Command lines the tool prints for people to paste (the replay of a failing case): each word
/// single-quoted when the shell would otherwise split or expand it (POSIX sh quoting, XCU 2.2.2).
package enum ShellWords {
    /// Characters a word may hold and still need no quotes.
    static let plain = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,+@%")

    /// `word` as one shell word: as it is when it needs no quotes, else in single quotes (a `'`
    /// inside becomes `'\''`).
    package static func quoted(_ word: String) -> String {
        if !word.isEmpty, word.allSatisfy(plain.contains) { return word }
        return "'" + word.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }

    /// `words` as one command line.
    package static func join(_ words: [String]) -> String { words.map(quoted).joined(separator: " ") }
}
