/// The byte scanner behind ``Redaction``: one pass, one table lookup per byte, a rule tried only
/// where a word starts with a byte some rule starts with.
///
/// Each rule returns the span of the secret value to replace and where scanning resumes;
/// everything else is copied as it was. Nothing is allocated until the first secret is found.
struct RedactionScanner {
    typealias Input = UnsafeBufferPointer<UInt8>

    /// A secret value found at some position: replace `value`, go on at `resume`.
    struct Match {
        var value: Range<Int>
        var resume: Int
        /// A bare JSON value (`"key":123`) is replaced by a quoted placeholder so the text stays JSON.
        var quote = false
        /// False: nothing to replace (a PEM key already redacted), only skip to `resume`.
        var replace = true
    }

    static let placeholder: StaticString = "<redacted>"

    let input: Input
    let t: Tables

    init(_ input: Input) {
        self.input = input
        self.t = RedactionScanner.tables
    }

    /// The redacted bytes, or nil when `input` holds no secret (the caller keeps its text).
    static func redact(_ input: Input) -> [UInt8]? { RedactionScanner(input).run() }

    func run() -> [UInt8]? {
        var out: [UInt8]?
        var copied = 0
        var i = 0
        let n = input.count
        var previousIsWord = false
        while i < n {
            let b = input[i]
            let isWord = t.words[Int(b)]
            if !previousIsWord, t.starts[Int(b)], i + 1 < n, t.mayStart(b, input[i + 1]), let match = match(at: i) {
                guard match.replace else {
                    i = max(match.resume, i + 1)
                    previousIsWord = t.words[Int(input[i - 1])]
                    continue
                }
                if out == nil {
                    out = []
                    out!.reserveCapacity(n + 32)
                }
                out!.append(contentsOf: input[copied..<match.value.lowerBound])
                if match.quote { out!.append(UInt8(ascii: "\"")) }
                out!.append(contentsOf: bytes(Self.placeholder))
                if match.quote { out!.append(UInt8(ascii: "\"")) }
                copied = match.value.upperBound
                i = max(match.resume, i + 1)
                // Word boundaries are judged on the text as written out: right after a replaced
                // value the previous byte is the placeholder's `>` (or a quote), as a second pass
                // will see it — `response=0123abcd-----BEGIN …` must find the key there too.
                previousIsWord = i > copied && t.words[Int(input[i - 1])]
                continue
            }
            previousIsWord = isWord
            i += 1
        }
        guard var out else { return nil }
        out.append(contentsOf: input[copied..<n])
        return out
    }

    /// The first rule that matches a word starting at `i`.
    func match(at i: Int) -> Match? {
        switch lower(input[i]) {
        case UInt8(ascii: "r"):
            if let m = digestResponse(at: i, "response") ?? digestResponse(at: i, "rspauth") { return m }
        case UInt8(ascii: "b"):
            if let m = credentials(at: i, "bearer") ?? credentials(at: i, "basic") { return m }
        case UInt8(ascii: "e"): if let m = jwt(at: i) { return m }
        case UInt8(ascii: "i"): if let m = inlineKey(at: i) { return m }
        case UInt8(ascii: "s"):
            if let m = uriPassword(at: i, "sips:") ?? uriPassword(at: i, "sip:") { return m }
        case UInt8(ascii: "t"):
            if let m = uriPassword(at: i, "turns:") ?? uriPassword(at: i, "turn:") { return m }
        case UInt8(ascii: "w"):
            if let m = uriPassword(at: i, "wss://") ?? uriPassword(at: i, "ws://") { return m }
        case UInt8(ascii: "h"):
            if let m = uriPassword(at: i, "https://") ?? uriPassword(at: i, "http://") { return m }
        case UInt8(ascii: "p"):
            if let m = uriPassword(at: i, "postgresql://") ?? uriPassword(at: i, "postgres://") { return m }
        case UInt8(ascii: "-"): return pemPrivateKey(at: i)
        default: break
        }
        return keyValue(at: i)
    }

    // MARK: Rules

    /// `password=…`, `password: …`, `"password":"…"`, `;pn-prid=…`, `a=ice-pwd:…`.
    func keyValue(at i: Int) -> Match? {
        for index in t.keysByFirstByte[Int(lower(input[i]))] {
            let key = t.key(index)
            guard hasPrefix(at: i, key) else { continue }
            var j = i + key.count
            var jsonKey = false
            if j < input.count, input[j] == UInt8(ascii: "\"") {
                jsonKey = true
                j += 1
            }
            j = skipBlanks(from: j)
            guard j < input.count, input[j] == UInt8(ascii: "=") || input[j] == UInt8(ascii: ":") else { continue }
            j = skipBlanks(from: j + 1)
            if j < input.count, input[j] == UInt8(ascii: "\"") { return quotedValue(at: j) }
            if hasPrefix(at: j, Self.placeholder) { return nil }
            var k = j
            while k < input.count, !t.bareValueStops[Int(input[k])] { k += 1 }
            guard k > j else { return nil }
            return Match(value: j..<k, resume: k, quote: jsonKey)
        }
        return nil
    }

    /// Digest `response=` / `rspauth=` (RFC 7616 §3.4, §3.5): quoted, or a bare run of 8+ hex
    /// digits (so `first response=12ms` in a diagnostic stays).
    func digestResponse(at i: Int, _ name: StaticString) -> Match? {
        guard hasPrefix(at: i, name) else { return nil }
        var j = skipBlanks(from: i + name.utf8CodeUnitCount)
        guard j < input.count, input[j] == UInt8(ascii: "=") else { return nil }
        j = skipBlanks(from: j + 1)
        if j < input.count, input[j] == UInt8(ascii: "\"") { return quotedValue(at: j) }
        var k = j
        while k < input.count, Self.isHexDigit(input[k]) { k += 1 }
        guard k - j >= 8, k == input.count || !t.words[Int(input[k])] else { return nil }
        return Match(value: j..<k, resume: k)
    }

    /// `Bearer <token68>` / `Basic <token68>` (RFC 6750 §2.1, RFC 7617 §2); an auth-param list
    /// (`Bearer realm="x"`, a challenge) and a plain word (`bearer token`) are left alone.
    func credentials(at i: Int, _ scheme: StaticString) -> Match? {
        guard hasPrefix(at: i, scheme) else { return nil }
        var j = i + scheme.utf8CodeUnitCount
        guard j < input.count, input[j] == UInt8(ascii: " ") || input[j] == UInt8(ascii: "\t") else { return nil }
        j = skipBlanks(from: j)
        var k = j
        var looksEncoded = false
        while k < input.count, Self.isToken68Byte(input[k]) {
            // A credential, not an English word: a digit or a symbol of token68 other than `-`.
            if (input[k] >= 0x30 && input[k] <= 0x39) || "._~+/".utf8.contains(input[k]) { looksEncoded = true }
            k += 1
        }
        guard k > j else { return nil }
        var end = k
        while end < input.count, input[end] == UInt8(ascii: "=") { end += 1 }
        // `realm="x"` or `realm=x`: a parameter, not a credential — also once its value is
        // redacted (`pn-prid=<redacted>`: a second pass must read it as the first did).
        if end > k, end < input.count,
            input[end] == UInt8(ascii: "\"") || Self.isToken68Byte(input[end]) || hasPrefix(at: end, Self.placeholder)
        {
            return nil
        }
        guard looksEncoded || end > k || k - j >= 24 else { return nil }
        return Match(value: j..<end, resume: end)
    }

    /// A JWT anywhere (RFC 7519 §3: `eyJ` + base64url `.` base64url `.` [base64url]).
    func jwt(at i: Int) -> Match? {
        guard hasPrefix(at: i, "eyJ", caseSensitive: true) else { return nil }
        var k = i
        var dots = 0
        while k < input.count {
            let b = input[k]
            if b == UInt8(ascii: ".") {
                dots += 1
                if dots > 2 { break }
            } else if !Self.isBase64URLByte(b) {
                break
            }
            k += 1
        }
        guard dots >= 2 else { return nil }
        return Match(value: i..<k, resume: k)
    }

    /// Every `inline:KEY` of an `a=crypto` line (RFC 4568 §6.1, §9.2: several per line).
    func inlineKey(at i: Int) -> Match? {
        let marker: StaticString = "inline:"
        guard hasPrefix(at: i, marker) else { return nil }
        let j = i + marker.utf8CodeUnitCount
        var k = j
        while k < input.count, Self.isBase64Byte(input[k]) { k += 1 }
        return k > j ? Match(value: j..<k, resume: k) : nil
    }

    /// `sip:user:password@host` and the same in `sips:`, `turn(s):`, `ws(s)://`, `http(s)://`
    /// (RFC 3261 §19.1.1, RFC 3986 §3.2.1).
    func uriPassword(at i: Int, _ scheme: StaticString) -> Match? {
        guard hasPrefix(at: i, scheme) else { return nil }
        var j = i + scheme.utf8CodeUnitCount
        let userStart = j
        while j < input.count, !t.userInfoStops[Int(input[j])], input[j] != UInt8(ascii: ":") { j += 1 }
        guard j > userStart, j < input.count, input[j] == UInt8(ascii: ":") else { return nil }
        let passwordStart = j + 1
        // Already redacted: skip the user part as the first pass did (it is not scanned either
        // time), so a second pass does not find a `key=` in it the first one never looked at.
        let redacted = passwordStart + Self.placeholder.utf8CodeUnitCount
        if hasPrefix(at: passwordStart, Self.placeholder), redacted < input.count, input[redacted] == UInt8(ascii: "@") {
            return Match(value: redacted..<redacted, resume: redacted, replace: false)
        }
        var k = passwordStart
        while k < input.count, !t.userInfoStops[Int(input[k])] { k += 1 }
        guard k > passwordStart, k < input.count, input[k] == UInt8(ascii: "@") else { return nil }
        return Match(value: passwordStart..<k, resume: k)
    }

    /// `-----BEGIN … PRIVATE KEY-----` body up to `-----END` (or to the end of a cut-off text).
    /// The header line is never scanned for other secrets, also when the body is empty or already
    /// redacted: otherwise a second pass would find what the first skipped (redacting twice must
    /// change nothing).
    func pemPrivateKey(at i: Int) -> Match? {
        let begin: StaticString = "-----BEGIN "
        let keyEnd: StaticString = "PRIVATE KEY-----"
        guard hasPrefix(at: i, begin, caseSensitive: true) else { return nil }
        var j = i + begin.utf8CodeUnitCount
        while j < input.count, input[j] != UInt8(ascii: "\n"), !hasPrefix(at: j, keyEnd, caseSensitive: true) { j += 1 }
        guard hasPrefix(at: j, keyEnd, caseSensitive: true) else { return nil }
        let bodyStart = j + keyEnd.utf8CodeUnitCount
        var k = bodyStart
        while k < input.count, !hasPrefix(at: k, "-----END ", caseSensitive: true) { k += 1 }
        if k == bodyStart || isPlaceholder(bodyStart..<k) {
            return Match(value: bodyStart..<bodyStart, resume: bodyStart, replace: false)
        }
        return Match(value: bodyStart..<k, resume: k)
    }

    // MARK: Pieces

    /// `"…"` with backslash escapes: the bytes between the quotes (an empty value stays), and
    /// never past the end of the line. Neither a SIP quoted-string holding a secret (RFC 7616
    /// §3.4: `response` is quoted hex) nor a JSON string (RFC 8259 §7: control characters are
    /// escaped) holds a bare CR or LF, and a value that ran on to a later quote swallowed the line
    /// ends between: a second pass saw other lines (a PEM header joined to the line after it)
    /// and redacted again. An unclosed quote ends with its line.
    func quotedValue(at quote: Int) -> Match? {
        var k = quote + 1
        while k < input.count, input[k] != UInt8(ascii: "\""), !Self.isLineEnd(input[k]) {
            if input[k] == UInt8(ascii: "\\"), k + 1 < input.count, !Self.isLineEnd(input[k + 1]) { k += 2 } else { k += 1 }
        }
        let end = min(k, input.count)
        guard end > quote + 1 else { return nil }
        let closed = end < input.count && input[end] == UInt8(ascii: "\"")
        return Match(value: (quote + 1)..<end, resume: closed ? end + 1 : end)
    }

    /// Whether `range` holds exactly ``placeholder``: a value already redacted, left as it is.
    /// Only exactly: a PEM body `<redacted>MIIE…` still holds a key after the placeholder.
    func isPlaceholder(_ range: Range<Int>) -> Bool {
        range.count == Self.placeholder.utf8CodeUnitCount && hasPrefix(at: range.lowerBound, Self.placeholder)
    }

    static func isLineEnd(_ b: UInt8) -> Bool { b == 0x0A || b == 0x0D }

    func bytes(_ word: StaticString) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
    }

    /// Whether `word` (lower case unless `caseSensitive`) is at `i`, ignoring ASCII case.
    func hasPrefix(at i: Int, _ word: StaticString, caseSensitive: Bool = false) -> Bool {
        hasPrefix(at: i, bytes(word), caseSensitive: caseSensitive)
    }

    func hasPrefix(at i: Int, _ word: UnsafeBufferPointer<UInt8>, caseSensitive: Bool = false) -> Bool {
        guard i + word.count <= input.count else { return false }
        var offset = 0
        while offset < word.count {
            let b = input[i + offset]
            if caseSensitive ? b != word[offset] : Self.lower(b) != word[offset] { return false }
            offset += 1
        }
        return true
    }

    func skipBlanks(from j: Int) -> Int {
        var j = j
        while j < input.count, input[j] == UInt8(ascii: " ") || input[j] == UInt8(ascii: "\t") { j += 1 }
        return j
    }

    func lower(_ b: UInt8) -> UInt8 { Self.lower(b) }

    @inline(__always) static func lower(_ b: UInt8) -> UInt8 { b >= 0x41 && b <= 0x5A ? b | 0x20 : b }

    static func isHexDigit(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (lower(b) >= 0x61 && lower(b) <= 0x66)
    }

    static func isAlphanumeric(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (lower(b) >= 0x61 && lower(b) <= 0x7A)
    }

    /// RFC 7235 §2.1 token68 without its trailing `=` padding.
    static func isToken68Byte(_ b: UInt8) -> Bool { isAlphanumeric(b) || "-._~+/".utf8.contains(b) }
    static func isBase64Byte(_ b: UInt8) -> Bool { isAlphanumeric(b) || b == 0x2B || b == 0x2F || b == 0x3D }
    static func isBase64URLByte(_ b: UInt8) -> Bool { isAlphanumeric(b) || b == 0x2D || b == 0x5F }

    // MARK: Tables

    /// The lookup tables, built once and never freed: plain pointers, so the per-byte loop
    /// does no reference counting and no lazy-global check.
    struct Tables: @unchecked Sendable {
        /// Bytes some rule starts with, in both cases.
        let starts: UnsafeBufferPointer<Bool>
        /// `[A-Za-z0-9_]`: a rule starts only where the previous byte is not one of these (a regex `\b`).
        let words: UnsafeBufferPointer<Bool>
        /// Where a bare value ends: blanks, line ends, quotes and the separators of SIP, JSON and queries.
        let bareValueStops: UnsafeBufferPointer<Bool>
        /// Bytes that end a URI's user or password part.
        let userInfoStops: UnsafeBufferPointer<Bool>
        /// ``Redaction/secretKeys`` as one byte run; `keys[keysByFirstByte[b]]` are the keys
        /// starting with byte `b`, longest first (so `token_x` is tried before `token`).
        let keyBytes: UnsafeBufferPointer<UInt8>
        let keys: UnsafeBufferPointer<Range<Int>>
        let keysByFirstByte: UnsafeBufferPointer<Range<Int>>

        /// The first two bytes (lower case) of every rule's word, as a 256 × 256 bit set: most
        /// word starts are ruled out with one more lookup.
        let pairs: UnsafeBufferPointer<UInt64>

        func key(_ index: Int) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: keyBytes[keys[index]]) }

        @inline(__always) func mayStart(_ first: UInt8, _ second: UInt8) -> Bool {
            let bit = Int(RedactionScanner.lower(first)) << 8 | Int(RedactionScanner.lower(second))
            return pairs[bit >> 6] & (1 << UInt64(bit & 63)) != 0
        }

        static func make() -> Tables {
            func table(_ member: (UInt8) -> Bool) -> UnsafeBufferPointer<Bool> {
                let t = UnsafeMutableBufferPointer<Bool>.allocate(capacity: 256)
                for b in 0..<256 { t[b] = member(UInt8(b)) }
                return UnsafeBufferPointer(t)
            }
            let sorted = Redaction.secretKeys.map { Array($0.utf8) }.sorted {
                ($0[0], -$0.count) < ($1[0], -$1.count)
            }
            let bytes = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: sorted.reduce(0) { $0 + $1.count })
            let keys = UnsafeMutableBufferPointer<Range<Int>>.allocate(capacity: sorted.count)
            let byFirst = UnsafeMutableBufferPointer<Range<Int>>.allocate(capacity: 256)
            for b in 0..<256 { byFirst[b] = 0..<0 }
            var offset = 0
            for (index, key) in sorted.enumerated() {
                for (k, byte) in key.enumerated() { bytes[offset + k] = byte }
                keys[index] = offset..<(offset + key.count)
                offset += key.count
                let first = Int(key[0])
                byFirst[first] = byFirst[first].isEmpty ? index..<(index + 1) : byFirst[first].lowerBound..<(index + 1)
            }
            let words = sorted + ["response", "rspauth", "bearer", "basic", "eyJ", "inline:", "sip", "turn", "ws", "http",
                                  "postgres", "-----"].map { Array($0.utf8) }
            let firsts = Set(words.map { lower($0[0]) })
            let pairs = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: 1024)
            for w in 0..<1024 { pairs[w] = 0 }
            for word in words {
                let bit = Int(lower(word[0])) << 8 | Int(lower(word[1]))
                pairs[bit >> 6] |= 1 << UInt64(bit & 63)
            }
            return Tables(
                starts: table { firsts.contains(lower($0)) },
                words: table { isAlphanumeric($0) || $0 == UInt8(ascii: "_") },
                bareValueStops: table { " \t\r\n\",;&>}]".utf8.contains($0) },
                userInfoStops: table { " \t\r\n@/;<>\"".utf8.contains($0) },
                keyBytes: UnsafeBufferPointer(bytes), keys: UnsafeBufferPointer(keys),
                keysByFirstByte: UnsafeBufferPointer(byFirst), pairs: UnsafeBufferPointer(pairs))
        }
    }

    static let tables = Tables.make()
}
