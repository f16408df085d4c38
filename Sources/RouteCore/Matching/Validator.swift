/// A check on a parameter's value (`where = { id = "[0-9]+" }`).
///
/// A regular expression must match the whole value. Common shapes (a character class with a
/// length, a run of such items like a UUID) run on a fast path over the bytes; others on
/// Luna's own engine, in time linear in the value whatever the pattern (backreferences and
/// lookaround, which have no such algorithm, are refused). Character classes are ASCII (`\d`
/// is `[0-9]`, `\w` is `[A-Za-z0-9_]`). A predicate is an opaque function supplied by a host (the Lua layer plugs script functions
/// in here); it may throw.
///
/// ```swift
/// let digits = try Validator(regex: "[0-9]+")
/// try digits.accepts("42")    // true
/// try digits.accepts("4a2")   // false: anchored to the whole value
/// ```
public struct Validator: Sendable {
    enum Program: Sendable {
        case classes(ByteClassProgram)
        case regex(LinearRegex)
        case predicate(@Sendable (String) throws -> Bool)
    }

    let program: Program
    /// The regex source, or a description of the predicate.
    public let source: String
    /// The regex's syntax tree (the lint's proofs read it); nil for a predicate.
    let syntax: RegexNode?

    /// Compiles a regular expression validator.
    ///
    /// - Throws: ``RouteDefinitionError`` when the regex does not compile.
    public init(regex source: String) throws(RouteDefinitionError) {
        self.source = source
        // Every source is checked by the one parser of the dialect; only a source the byte
        // fast path cannot run is compiled to an automaton.
        do throws(RegexSyntaxError) {
            let parsed = try ParsedRegex(source)
            syntax = parsed.syntax
            if let fast = ByteClassProgram(source) {
                program = .classes(fast)
            } else {
                program = .regex(try LinearRegex(parsed: parsed))
            }
        } catch {
            throw RouteDefinitionError(regex: source, error)
        }
    }

    /// A validator that calls `predicate`.
    public init(description: String = "function", predicate: @escaping @Sendable (String) throws -> Bool) {
        self.source = description
        self.program = .predicate(predicate)
        self.syntax = nil
    }

    /// Whether the validator runs on the fast path (for tests and `luna check`).
    public var isFastPath: Bool {
        if case .classes = program { return true }
        return false
    }

    /// Whether the validator is a script predicate.
    public var isPredicate: Bool {
        if case .predicate = program { return true }
        return false
    }

    /// Whether `value` passes. Predicates may throw; regexes never do.
    public func accepts(_ value: String) throws -> Bool {
        switch program {
        case .classes(let fast):
            var value = value
            return value.withUTF8 { fast.matches($0) }
        case .regex(let regex):
            return regex.wholeMatch(value)
        case .predicate(let predicate):
            return try predicate(value)
        }
    }

    /// The verdict on raw bytes, or nil when the validator needs a String (a predicate);
    /// never throws.
    func fastVerdict(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool? {
        switch program {
        case .classes(let fast): fast.matches(bytes)
        case .regex(let regex): regex.wholeMatch(bytes)
        case .predicate: nil
        }
    }
}

/// The fast path of ``Validator``: a sequence of ASCII byte classes with repetition counts,
/// every item but the last of fixed length (so greedy matching is exact).
struct ByteClassProgram: Equatable, Sendable {
    struct Item: Equatable, Sendable {
        var low: UInt64 = 0  // bytes 0...63
        var high: UInt64 = 0  // bytes 64...127
        var minimum: Int
        var maximum: Int  // Int.max: unbounded

        @inline(__always)
        func contains(_ byte: UInt8) -> Bool {
            if byte < 64 { return low & (1 << UInt64(byte)) != 0 }
            if byte < 128 { return high & (1 << UInt64(byte - 64)) != 0 }
            return false
        }

        mutating func insert(_ byte: UInt8) {
            if byte < 64 { low |= 1 << UInt64(byte) } else if byte < 128 { high |= 1 << UInt64(byte - 64) }
        }

        mutating func insert(_ range: ClosedRange<UInt8>) { for b in range { insert(b) } }
    }

    let items: [Item]

    func matches(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        for item in items {
            var count = 0
            while count < item.maximum, index < bytes.count, item.contains(bytes[index]) {
                index += 1
                count += 1
            }
            if count < item.minimum { return false }
        }
        return index == bytes.count
    }

    /// Recognizes the shapes the fast path handles; nil for anything else.
    init?(_ source: String) {
        var bytes = Array(source.utf8)[...]
        if bytes.first == UInt8(ascii: "^") { bytes = bytes.dropFirst() }
        if bytes.last == UInt8(ascii: "$"), bytes.dropLast().last != UInt8(ascii: "\\") { bytes = bytes.dropLast() }
        var items: [Item] = []
        while let first = bytes.first {
            var item = Item(minimum: 1, maximum: 1)
            bytes = bytes.dropFirst()
            switch first {
            case UInt8(ascii: "["):
                guard let end = bytes.firstIndex(of: UInt8(ascii: "]")), end > bytes.startIndex else { return nil }
                var set = bytes[bytes.startIndex..<end]
                bytes = bytes[(end + 1)...]
                if set.first == UInt8(ascii: "^") { return nil }
                while let c = set.first {
                    set = set.dropFirst()
                    if c == UInt8(ascii: "\\") {
                        guard let e = set.first, Self.insertEscape(e, into: &item) else { return nil }
                        set = set.dropFirst()
                    } else if set.count >= 2, set.first == UInt8(ascii: "-") {
                        let upper = set[set.startIndex + 1]
                        guard c <= upper, upper < 128, upper != UInt8(ascii: "\\"), upper != UInt8(ascii: "[") else {
                            return nil
                        }
                        item.insert(c...upper)
                        set = set.dropFirst(2)
                    } else {
                        guard c < 128, c != UInt8(ascii: "["), c != UInt8(ascii: "&"), c != UInt8(ascii: "~")
                        else { return nil }
                        item.insert(c)
                    }
                }
            case UInt8(ascii: "\\"):
                guard let e = bytes.first, Self.insertEscape(e, into: &item) else { return nil }
                bytes = bytes.dropFirst()
            default:
                let literal =
                    (48...57).contains(first) || (65...90).contains(first) || (97...122).contains(first)
                    || first == UInt8(ascii: "-") || first == UInt8(ascii: "_")
                guard literal else { return nil }
                item.insert(first)
            }
            // Quantifier.
            if let q = bytes.first {
                switch q {
                case UInt8(ascii: "+"): (item.minimum, item.maximum) = (1, .max)
                case UInt8(ascii: "*"): (item.minimum, item.maximum) = (0, .max)
                case UInt8(ascii: "?"): (item.minimum, item.maximum) = (0, 1)
                case UInt8(ascii: "{"):
                    guard let close = bytes.firstIndex(of: UInt8(ascii: "}")) else { return nil }
                    let body = String(decoding: bytes[(bytes.startIndex + 1)..<close], as: UTF8.self)
                    let parts = body.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false)
                    guard let low = Int(parts[0]), low <= 10_000 else { return nil }
                    if parts.count == 1 {
                        (item.minimum, item.maximum) = (low, low)
                    } else if parts[1].isEmpty {
                        (item.minimum, item.maximum) = (low, .max)
                    } else {
                        guard let high = Int(parts[1]), high >= low, high <= 10_000 else { return nil }
                        (item.minimum, item.maximum) = (low, high)
                    }
                    bytes = bytes[close...]
                default: break
                }
                if [UInt8(ascii: "+"), UInt8(ascii: "*"), UInt8(ascii: "?"), UInt8(ascii: "{")].contains(q) {
                    bytes = bytes.dropFirst()
                    // Lazy or possessive modifiers are not for the fast path.
                    if let next = bytes.first, next == UInt8(ascii: "?") || next == UInt8(ascii: "+") { return nil }
                }
            }
            items.append(item)
        }
        guard !items.isEmpty, items.dropLast().allSatisfy({ $0.minimum == $0.maximum }) else { return nil }
        self.items = items
    }

    private static func insertEscape(_ e: UInt8, into item: inout Item) -> Bool {
        switch e {
        case UInt8(ascii: "d"): item.insert(48...57)
        case UInt8(ascii: "w"):
            item.insert(48...57)
            item.insert(65...90)
            item.insert(97...122)
            item.insert(UInt8(ascii: "_"))
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "\\"), UInt8(ascii: "]"),
            UInt8(ascii: "["), UInt8(ascii: "+"), UInt8(ascii: "*"), UInt8(ascii: "?"):
            item.insert(e)
        default: return false
        }
        return true
    }
}
