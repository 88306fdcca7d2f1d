extension SessionDescription {
    /// Parses SDP text (RFC 8866 §5, §9 grammar). Accepts CRLF or bare LF line ends. Throws a
    /// ``MediaError`` with code `badSDPLine`, `missingSDPLine` or `badSDPField` naming the line.
    public init(parsing text: String) throws(MediaError) {
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).map {
            line -> Substring in
            line.last == "\r" ? line.dropLast() : line
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard !lines.isEmpty else { throw MediaError(.missingSDPLine, "empty SDP") }

        var version: Int?
        var origin: SDPOrigin?
        var sessionName: String?
        var session = SessionDescription(origin: SDPOrigin(sessionID: "0", sessionVersion: 0, address: "0.0.0.0"))
        session.timings = []
        var current: MediaDescription?
        // Session-level order rank (RFC 8866 §5): v o s i u e p c b t r z k a, then m sections.
        let rank: [Character: Int] = [
            "v": 0, "o": 1, "s": 2, "i": 3, "u": 4, "e": 5, "p": 6, "c": 7, "b": 8,
            "t": 9, "r": 10, "z": 11, "k": 12, "a": 13,
        ]
        let mediaRank: [Character: Int] = ["i": 0, "c": 1, "b": 2, "k": 3, "a": 4]
        var lastRank = -1

        for (number, line) in lines.enumerated() {
            let n = number + 1
            guard line.count >= 2, line[line.index(after: line.startIndex)] == "=", let type = line.first,
                type.isASCII, type.isLetter, type.isLowercase
            else {
                throw MediaError(.badSDPLine, "line \(n): '\(line.prefix(40))'")
            }
            // RFC 8866 §9: no field holds a CR (byte-string, token and text exclude it). A CR
            // taken into a field was written back in front of the CRLF, where it ended the line
            // early on the next read (`m=audio 0 \r` lost its protocol).
            guard !line.unicodeScalars.contains("\r") else {
                throw MediaError(.badSDPLine, "line \(n): a CR inside the line")
            }
            let value = String(line.dropFirst(2))
            if type == "m" {
                if let m = current { session.media.append(m) }
                current = try Self.parseMediaLine(value, line: n)
                lastRank = -1
                continue
            }
            if var m = current {
                guard let r = mediaRank[type], r >= lastRank || (r == lastRank) else {
                    throw MediaError(.badSDPLine, "line \(n): '\(type)=' not allowed here in a media section")
                }
                lastRank = r
                switch type {
                case "i": m.information = value
                case "c": m.connection = try Self.wrap(n) { () throws(MediaError) in try SDPConnection(parsing: value) }
                case "b": m.bandwidths.append(value)
                case "k": m.encryptionKey = value
                default: m.attributes.append(SDPAttribute(line: Substring(value)))
                }
                current = m
                continue
            }
            guard let r = rank[type] else { throw MediaError(.badSDPLine, "line \(n): unknown type '\(type)'") }
            let repeatable: Set<Character> = ["e", "p", "b", "t", "r", "a"]
            guard r > lastRank || (r == lastRank && repeatable.contains(type)) || (type == "t" && lastRank == 10) else {
                throw MediaError(.badSDPLine, "line \(n): '\(type)=' out of order")
            }
            lastRank = r
            switch type {
            case "v":
                guard n == 1, value == "0" else { throw MediaError(.badSDPField, "line \(n): v=\(value)") }
                version = 0
            case "o": origin = try Self.wrap(n) { () throws(MediaError) in try SDPOrigin(parsing: value) }
            case "s": sessionName = value
            case "i": session.information = value
            case "u": session.uri = value
            case "e": session.emails.append(value)
            case "p": session.phones.append(value)
            case "c":
                session.connection = try Self.wrap(n) { () throws(MediaError) in try SDPConnection(parsing: value) }
            case "b": session.bandwidths.append(value)
            case "t":
                let f = value.split(separator: " ")
                guard f.count == 2, let start = UInt64(f[0]), let stop = UInt64(f[1]) else {
                    throw MediaError(.badSDPField, "line \(n): t=\(value)")
                }
                session.timings.append(SDPTiming(start: start, stop: stop))
            case "r":
                guard !session.timings.isEmpty else { throw MediaError(.badSDPLine, "line \(n): r= without t=") }
                session.timings[session.timings.count - 1].repeats.append(value)
            case "z": session.timeZones = value
            case "k": session.encryptionKey = value
            default: session.attributes.append(SDPAttribute(line: Substring(value)))
            }
        }
        if let m = current { session.media.append(m) }

        guard version != nil else { throw MediaError(.missingSDPLine, "v= missing") }
        guard let origin else { throw MediaError(.missingSDPLine, "o= missing") }
        guard let sessionName else { throw MediaError(.missingSDPLine, "s= missing") }
        guard !session.timings.isEmpty else { throw MediaError(.missingSDPLine, "t= missing") }
        session.origin = origin
        session.sessionName = sessionName
        for (i, m) in session.media.enumerated() {
            guard m.connection != nil || session.connection != nil else {
                throw MediaError(.missingSDPLine, "c= missing for media section \(i + 1) (RFC 8866 §5.7)")
            }
            try m.validate()
        }
        for a in session.attributes where a.name == "group" {
            _ = try SDPGroup(parsing: a.value ?? "")
        }
        self = session
    }

    private static func parseMediaLine(_ value: String, line n: Int) throws(MediaError) -> MediaDescription {
        let f = value.split(separator: " ").map(String.init)
        guard f.count >= 3 else { throw MediaError(.badSDPField, "line \(n): m=\(value)") }
        let portParts = f[1].split(separator: "/")
        guard let port = portParts.first.flatMap({ UInt16($0) }), portParts.count <= 2 else {
            throw MediaError(.badSDPField, "line \(n): m= port '\(f[1])'")
        }
        var m = MediaDescription(media: f[0], port: port, proto: f[2], formats: Array(f.dropFirst(3)))
        if portParts.count == 2 {
            guard let count = Int(portParts[1]) else { throw MediaError(.badSDPField, "line \(n): m= port count") }
            m.portCount = count
        }
        if m.proto.contains("RTP") {
            for fmt in m.formats {
                guard let pt = UInt8(fmt), pt < 128 else {
                    throw MediaError(.badSDPField, "line \(n): payload type '\(fmt)'")
                }
            }
        }
        return m
    }

    private static func wrap<T>(_ line: Int, _ body: () throws(MediaError) -> T) throws(MediaError) -> T {
        do { return try body() } catch { throw MediaError(error.code, "line \(line): \(error.detail)") }
    }
}
