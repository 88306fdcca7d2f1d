/// The `Decoder` and its three containers over a ``JSONValue`` (``JSONValueDecoder``).
struct ValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    let options: JSONValueDecoder
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else { throw mismatch([String: Int].self, value, codingPath) }
        return KeyedDecodingContainer(KeyedValueContainer<Key>(object: object, decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else { throw mismatch([Int].self, value, codingPath) }
        return UnkeyedValueContainer(items: items, decoder: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleValueContainer(decoder: self) }

    func child(_ value: JSONValue, _ key: any CodingKey) -> ValueDecoder {
        ValueDecoder(value: value, codingPath: codingPath + [key], options: options)
    }

    /// Decodes one value of a primitive or nested type.
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        switch type {
        case is Bool.Type:
            guard case .bool(let flag) = value else { throw mismatch(type, value, codingPath) }
            return flag as! T
        case is String.Type:
            guard case .string(let text) = value else { throw mismatch(type, value, codingPath) }
            return text as! T
        case is Double.Type:
            let double: Double = try number(Double.self) { $0.double }
            return double as! T
        case is Float.Type:
            let float: Float = try number(Float.self) { Float($0.double) }
            return float as! T
        case let integer as any FixedWidthInteger.Type: return try self.integer(integer) as! T
        default: return try T(from: self)
        }
    }

    private func number<N>(_ type: N.Type, _ read: (JSONNumber) -> N) throws -> N {
        guard case .number(let number) = value else { throw mismatch(type, value, codingPath) }
        return read(number)
    }

    /// An integer literal in range, or an integral number written otherwise (`1.0`, `1e3`).
    private func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        guard case .number(let number) = value else { throw mismatch(type, value, codingPath) }
        if let exact = I(number.text) { return exact }
        let double = number.double
        if double.isFinite, double == double.rounded(), let exact = I(exactly: double) { return exact }
        let why = double.isFinite && double != double.rounded() ? "not an integer" : "number out of range for \(I.self)"
        throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "\(why): \(number.text)"))
    }
}

/// A `typeMismatch` naming what was expected and the JSON type found.
func mismatch(_ type: Any.Type, _ value: JSONValue, _ path: [any CodingKey]) -> DecodingError {
    let found = value == .null ? "null" : "a \(value.typeName)"
    return .typeMismatch(type, .init(codingPath: path, debugDescription: "expected \(type), found \(found)"))
}

struct KeyedValueContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: ValueDecoder
    /// Members by the name their coding key has (converted from snake case when asked); the
    /// last of a repeated key wins, as in ``JSONObject`` lookup.
    let members: [String: JSONValue]
    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    init(object: JSONObject, decoder: ValueDecoder) {
        self.decoder = decoder
        var members: [String: JSONValue] = [:]
        for (key, value) in object {
            members[decoder.options.convertFromSnakeCase ? JSONValueDecoder.camelCase(key) : key] = value
        }
        self.members = members
    }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    func value(_ key: Key) throws -> JSONValue {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(
                key, .init(codingPath: codingPath, debugDescription: "no key \(key.stringValue)"))
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { try value(key) == .null }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let value = try value(key)
        if value == .null {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath + [key], debugDescription: "null"))
        }
        return try decoder.child(value, key).decode(type)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try decoder.child(try value(key), key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.child(try value(key), key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        decoder.child(members["super"] ?? .null, JSONCodingKey(stringValue: "super"))
    }

    func superDecoder(forKey key: Key) throws -> any Decoder { decoder.child(members[key.stringValue] ?? .null, key) }
}

struct UnkeyedValueContainer: UnkeyedDecodingContainer {
    let items: [JSONValue]
    let decoder: ValueDecoder
    var currentIndex = 0
    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    init(items: [JSONValue], decoder: ValueDecoder) {
        self.items = items
        self.decoder = decoder
    }

    private mutating func next<T>(_ type: T.Type) throws -> (JSONValue, any CodingKey) {
        let key = JSONCodingKey(intValue: currentIndex)
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type, .init(codingPath: codingPath + [key], debugDescription: "the array has \(items.count) elements"))
        }
        defer { currentIndex += 1 }
        return (items[currentIndex], key)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, items[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (value, key) = try next(type)
        if value == .null {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath + [key], debugDescription: "null"))
        }
        return try decoder.child(value, key).decode(type)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        let (value, key) = try next(JSONObject.self)
        return try decoder.child(value, key).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (value, key) = try next([JSONValue].self)
        return try decoder.child(value, key).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let (value, key) = try next(JSONValue.self)
        return decoder.child(value, key)
    }
}

struct SingleValueContainer: SingleValueDecodingContainer {
    let decoder: ValueDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.value == .null }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if decoder.value == .null {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath, debugDescription: "null"))
        }
        return try decoder.decode(type)
    }
}
