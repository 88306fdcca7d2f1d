/// One `;name[=value]` parameter (RFC 3261 §25.1 `generic-param`, `uri-parameter`).
public struct SIPParameter: Sendable, Hashable {
    /// The name as written.
    public var name: String
    /// The value as written (quoted-string values keep their quotes); `nil` for a flag.
    public var value: String?

    public init(name: String, value: String? = nil) {
        self.name = name
        self.value = value
    }
}

/// An ordered list of parameters with case-insensitive lookup by name (RFC 3261 §7.3.1,
/// §19.1.4: parameter names compare case-insensitively).
public struct SIPParameters: Sendable, Hashable, RandomAccessCollection, ExpressibleByArrayLiteral {
    public var elements: [SIPParameter]

    public init(_ elements: [SIPParameter] = []) { self.elements = elements }
    public init(arrayLiteral elements: SIPParameter...) { self.elements = elements }

    public var startIndex: Int { elements.startIndex }
    public var endIndex: Int { elements.endIndex }
    public subscript(position: Int) -> SIPParameter { elements[position] }

    private func index(of name: String) -> Int? {
        var name = name
        return name.withUTF8 { wanted in elements.firstIndex { Self.named($0.name, wanted) } }
    }

    /// Whether `name` is `wanted` ignoring ASCII case, on the contiguous UTF-8 of both: lengths
    /// first (most misses end there), then byte by byte. Comparing the two `UTF8View`s with
    /// `elementsEqual(_:by:)` went through generic iterators and cost ~500 instructions per
    /// lookup of `tag` or `branch`.
    @inline(__always)
    private static func named(_ name: String, _ wanted: UnsafeBufferPointer<UInt8>) -> Bool {
        guard name.utf8.count == wanted.count else { return false }
        var name = name
        return name.withUTF8 { have in
            for i in 0..<have.count where ByteClass.lower(have[i]) != ByteClass.lower(wanted[i]) { return false }
            return true
        }
    }

    /// Whether a parameter called `name` is present (with or without value).
    public func contains(_ name: String) -> Bool { index(of: name) != nil }

    /// The value of the first parameter called `name`, unquoted; `nil` if absent or a flag.
    public subscript(name: String) -> String? {
        guard let index = index(of: name), let value = elements[index].value else { return nil }
        return SIPParameters.unquoted(value)
    }

    /// Sets (replacing the first occurrence) or appends `name`, as a flag when `value` is nil.
    public mutating func set(_ name: String, _ value: String? = nil) {
        if let index = index(of: name) {
            elements[index].value = value
        } else {
            elements.append(SIPParameter(name: name, value: value))
        }
    }

    /// Removes every parameter called `name`.
    public mutating func remove(_ name: String) {
        while let index = index(of: name) { elements.remove(at: index) }
    }

    /// `;a=b;c` as written on the wire.
    public var serialized: String {
        var out = ""
        for element in elements {
            out += ";" + element.name
            if let value = element.value { out += "=" + value }
        }
        return out
    }

    /// The content of a quoted-string with quoted-pairs resolved, or `text` itself.
    static func unquoted(_ text: String) -> String {
        guard text.utf8.first == ByteClass.quote else { return text }  // the common case: a token
        let utf8 = Array(text.utf8)
        guard utf8.count >= 2, utf8.first == ByteClass.quote, utf8.last == ByteClass.quote else { return text }
        var out = [UInt8]()
        out.reserveCapacity(utf8.count)
        var i = 1
        while i < utf8.count - 1 {
            if utf8[i] == ByteClass.backslash, i + 1 < utf8.count - 1 { i += 1 }
            out.append(utf8[i])
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Room made at the first parameter of a parsed list: an array grown one append at a time
    /// reallocates at the second and third parameter, and a parsed From, Contact, Via or URI
    /// seldom has more than four (`tag`; `expires`, `+sip.instance`, `reg-id`; `branch`,
    /// `rport`, `received`; `transport`, `lr`, `ob`).
    static let firstCapacity = 4

    /// Builds the list from `;`-separated ranges found by ``ByteCursor/parameters(_:)``.
    init(_ p: UnsafeBufferPointer<UInt8>, cursor: inout ByteCursor) throws(SIPParseError) {
        var elements = [SIPParameter]()
        try cursor.parameters { name, value in
            if elements.isEmpty { elements.reserveCapacity(Self.firstCapacity) }
            elements.append(SIPParameter(name: p.string(name), value: value.map { p.unfoldedString($0) }))
        }
        self.elements = elements
    }

    /// Builds the list from a URI's raw `;a=b;c` (or `a=b&c=d` for URI headers) region.
    init(uriRegion p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, separator: UInt8) {
        var elements = [SIPParameter]()
        var i = range.lowerBound
        while i < range.upperBound {
            if p[i] == separator {
                i += 1
                continue
            }
            let start = i
            while i < range.upperBound && p[i] != separator { i += 1 }
            if elements.isEmpty { elements.reserveCapacity(Self.firstCapacity) }
            var eq: Int? = nil
            for j in start..<i where p[j] == ByteClass.equals {
                eq = j
                break
            }
            if let eq {
                elements.append(SIPParameter(name: p.string(start..<eq), value: p.string(eq + 1..<i)))
            } else {
                elements.append(SIPParameter(name: p.string(start..<i)))
            }
        }
        self.elements = elements
    }
}
