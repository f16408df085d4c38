/// A minimal JSON reader for named requests (`book|{"id":42}`): objects, arrays, strings,
/// numbers (kept as their text), booleans and null. RouteCore avoids Foundation, so it
/// reads JSON itself.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.number(let a), .number(let b)), (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a.map(\.0) == b.map(\.0) && a.map(\.1) == b.map(\.1)
        default: false
        }
    }

    /// The value as a parameter or query string: strings as they are, numbers as written,
    /// booleans as `true`/`false`, null as empty, arrays and objects as compact JSON.
    var parameterText: String {
        switch self {
        case .null: ""
        case .bool(let b): b ? "true" : "false"
        case .number(let n): n
        case .string(let s): s
        case .array, .object: jsonText
        }
    }

    /// Parses a whole JSON text (at most `maxDepth` levels deep).
    public static func parse(_ text: String, maxDepth: Int = 64) throws(RouteError) -> JSONValue {
        try JSONReader.parse(text, maxDepth: maxDepth)
    }

    /// A field of an object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let fields) = self else { return nil }
        return fields.last { $0.0 == key }?.1
    }

    /// The string, if this is one.
    public var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The number as an integer, if this is a whole number.
    public var integer: Int? {
        if case .number(let n) = self { return Int(n) }
        return nil
    }

    /// The boolean, if this is one.
    public var bool: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var jsonText: String {
        switch self {
        case .null: "null"
        case .bool(let b): b ? "true" : "false"
        case .number(let n): n
        case .string(let s): JSONWriter.quoted(s)
        case .array(let items): "[" + items.map(\.jsonText).joined(separator: ",") + "]"
        case .object(let fields):
            "{" + fields.map { JSONWriter.quoted($0.0) + ":" + $0.1.jsonText }.joined(separator: ",") + "}"
        }
    }
}

struct JSONReader {
    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0
    private var maxDepth = 64

    /// Parses a whole JSON text. Throws a message naming the byte offset of the problem.
    static func parse(_ text: String, maxDepth: Int = 64) throws(RouteError) -> JSONValue {
        var reader = JSONReader(bytes: Array(text.utf8))
        reader.maxDepth = maxDepth
        let value = try reader.value()
        reader.skipSpace()
        guard reader.index == reader.bytes.count else { throw reader.failure("unexpected text after the value") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func failure(_ what: String) -> RouteError {
        RouteError(.invalidRequest, "invalid JSON at offset \(index): \(what)")
    }

    private mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    private mutating func literal(_ word: String, _ value: JSONValue) throws(RouteError) -> JSONValue {
        let expected = Array(word.utf8)
        guard index + expected.count <= bytes.count, Array(bytes[index..<index + expected.count]) == expected
        else { throw failure("unexpected character") }
        index += expected.count
        return value
    }

    private mutating func value() throws(RouteError) -> JSONValue {
        skipSpace()
        guard index < bytes.count else { throw failure("unexpected end") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        default: return try number()
        }
    }

    private mutating func nested<T>(_ body: (inout JSONReader) throws(RouteError) -> T) throws(RouteError) -> T {
        depth += 1
        guard depth <= maxDepth else { throw failure("nested more than \(maxDepth) deep") }
        defer { depth -= 1 }
        return try body(&self)
    }

    private mutating func object() throws(RouteError) -> JSONValue {
        try nested { (reader) throws(RouteError) in
            reader.index += 1
            // A repeated key keeps its last value, at its last place: the earlier entry is
            // noted dead and left out at the end. Small objects find it by a scan from the end
            // (the latest entry with a key is the live one); past 16 fields an index of
            // positions is made (one lookup per field, never quadratic). A dictionary for every
            // object cost reading an exported 10k-route tree 100 M instructions; the fields
            // are returned as they were read unless a key repeated (no second array).
            var fields: [(String, JSONValue)] = []
            fields.reserveCapacity(8)
            var positions: [String: Int]?
            var dead: [Int] = []
            func object() -> JSONValue {
                guard !dead.isEmpty else { return .object(fields) }
                dead.sort()
                var live: [(String, JSONValue)] = []
                live.reserveCapacity(fields.count - dead.count)
                var next = 0
                for (position, field) in fields.enumerated() {
                    if next < dead.count, dead[next] == position {
                        next += 1
                    } else {
                        live.append(field)
                    }
                }
                return .object(live)
            }
            reader.skipSpace()
            if reader.index < reader.bytes.count, reader.bytes[reader.index] == UInt8(ascii: "}") {
                reader.index += 1
                return object()
            }
            while true {
                reader.skipSpace()
                guard reader.index < reader.bytes.count, reader.bytes[reader.index] == UInt8(ascii: "\"") else {
                    throw reader.failure("expected a field name")
                }
                let key = try reader.string()
                reader.skipSpace()
                guard reader.index < reader.bytes.count, reader.bytes[reader.index] == UInt8(ascii: ":") else {
                    throw reader.failure("expected ':'")
                }
                reader.index += 1
                let value = try reader.value()
                if positions == nil, fields.count == 16 {
                    // In order, so a repeated key's later (live) position wins.
                    var index: [String: Int] = [:]
                    for (position, field) in fields.enumerated() { index[field.0] = position }
                    positions = index
                }
                if let earlier = positions.map({ $0[key] }) ?? fields.lastIndex(where: { $0.0 == key }) {
                    dead.append(earlier)
                }
                positions?[key] = fields.count
                fields.append((key, value))
                reader.skipSpace()
                guard reader.index < reader.bytes.count else { throw reader.failure("unexpected end") }
                if reader.bytes[reader.index] == UInt8(ascii: ",") {
                    reader.index += 1
                } else if reader.bytes[reader.index] == UInt8(ascii: "}") {
                    reader.index += 1
                    return object()
                } else {
                    throw reader.failure("expected ',' or '}'")
                }
            }
        }
    }

    private mutating func array() throws(RouteError) -> JSONValue {
        try nested { (reader) throws(RouteError) in
            reader.index += 1
            var items: [JSONValue] = []
            reader.skipSpace()
            if reader.index < reader.bytes.count, reader.bytes[reader.index] == UInt8(ascii: "]") {
                reader.index += 1
                return .array(items)
            }
            while true {
                items.append(try reader.value())
                reader.skipSpace()
                guard reader.index < reader.bytes.count else { throw reader.failure("unexpected end") }
                if reader.bytes[reader.index] == UInt8(ascii: ",") {
                    reader.index += 1
                } else if reader.bytes[reader.index] == UInt8(ascii: "]") {
                    reader.index += 1
                    return .array(items)
                } else {
                    throw reader.failure("expected ',' or ']'")
                }
            }
        }
    }

    private mutating func number() throws(RouteError) -> JSONValue {
        let start = index
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        var digits = 0
        while index < bytes.count, (48...57).contains(bytes[index]) {
            index += 1
            digits += 1
        }
        guard digits > 0 else { throw failure("unexpected character") }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var fraction = 0
            while index < bytes.count, (48...57).contains(bytes[index]) {
                index += 1
                fraction += 1
            }
            guard fraction > 0 else { throw failure("expected a digit") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            var exponent = 0
            while index < bytes.count, (48...57).contains(bytes[index]) {
                index += 1
                exponent += 1
            }
            guard exponent > 0 else { throw failure("expected a digit") }
        }
        return .number(String(decoding: bytes[start..<index], as: UTF8.self))
    }

    private mutating func string() throws(RouteError) -> String {
        index += 1  // the opening quote
        // Most strings have no escape: one scan, one String. The bytes came from a String,
        // so a run between two ASCII quotes is valid UTF-8 already (the byte-by-byte copy and
        // its validation cost reading an exported 10k-route tree 110 M instructions).
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: bytes[start..<index - 1], as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            index += 1
        }
        var result = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let string = String(validUTF8: result) else {
                    throw failure("invalid UTF-8 in a string")
                }
                return string
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw failure("unexpected end") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): result.append(escape)
                case UInt8(ascii: "b"): result.append(0x08)
                case UInt8(ascii: "f"): result.append(0x0C)
                case UInt8(ascii: "n"): result.append(0x0A)
                case UInt8(ascii: "r"): result.append(0x0D)
                case UInt8(ascii: "t"): result.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                            bytes[index + 1] == UInt8(ascii: "u")
                        else { throw failure("unpaired surrogate") }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw failure("unpaired surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw failure("invalid \\u escape") }
                    result.append(contentsOf: Array(String(Character(unicode)).utf8))
                default: throw failure("invalid escape")
                }
            case 0..<0x20: throw failure("control character in a string")
            default: result.append(byte)
            }
        }
        throw failure("unterminated string")
    }

    private mutating func hex4() throws(RouteError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("invalid \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = Bytes.hexValue(bytes[index]) else { throw failure("invalid \\u escape") }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }
}
