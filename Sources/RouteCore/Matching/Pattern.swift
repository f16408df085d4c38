/// A route pattern in MonarchRouter's convention: the full path from the root.
///
/// ```swift
/// let pattern = try Pattern("books/:id")
/// pattern.segments        // [.constant("books"), .parameter("id")]
/// try Pattern("./reviews/...rest", relativeTo: pattern).description  // "books/:id/reviews/...rest"
/// ```
///
/// Segments: a constant matches itself exactly; `:name` one segment, bound to `name`; `:_`
/// any one segment, bound to nothing. Last only, the rest segments: `...` zero or more
/// segments, and `...name` binds them joined with `/`; `:name?` zero or one segment (absent,
/// `name` is not bound); `:name+` one or more, joined with `/`. Leading and trailing `/` are
/// ignored; `""` is the root.
///
/// Constants are compared by their UTF-8 bytes, as requests are matched (docs/dsl.md, "Requests"):
/// `café` written precomposed (U+00E9) and decomposed (`e` + U+0301) are two patterns, not
/// one — Swift's `String` equality, which takes them as equal, is not used for them.
public struct Pattern: Hashable, Sendable, CustomStringConvertible {
    /// One segment of a pattern.
    public enum Segment: Hashable, Sendable {
        case constant(String)
        case parameter(String)
        case wildcard
        /// `...` or `...name`: zero or more segments.
        case catchAll(String?)
        /// `:name?`: zero or one segment.
        case optional(String)
        /// `:name+`: one or more segments.
        case oneOrMore(String)

        /// Equal when of the same kind with the same bytes.
        public static func == (lhs: Segment, rhs: Segment) -> Bool {
            switch (lhs, rhs) {
            case (.constant(let a), .constant(let b)), (.parameter(let a), .parameter(let b)),
                (.optional(let a), .optional(let b)), (.oneOrMore(let a), .oneOrMore(let b)):
                Pattern.sameBytes(a, b)
            case (.wildcard, .wildcard): true
            case (.catchAll(nil), .catchAll(nil)): true
            case (.catchAll(let a?), .catchAll(let b?)): Pattern.sameBytes(a, b)
            default: false
            }
        }

        public func hash(into hasher: inout Hasher) {
            switch self {
            case .constant(let text): Pattern.hashBytes(0, text, into: &hasher)
            case .parameter(let name): Pattern.hashBytes(1, name, into: &hasher)
            case .wildcard: hasher.combine(UInt8(2))
            case .catchAll(let name): Pattern.hashBytes(name == nil ? 3 : 4, name ?? "", into: &hasher)
            case .optional(let name): Pattern.hashBytes(5, name, into: &hasher)
            case .oneOrMore(let name): Pattern.hashBytes(6, name, into: &hasher)
            }
        }

        var text: String {
            switch self {
            case .constant(let c): c
            case .parameter(let name): ":" + name
            case .wildcard: ":_"
            case .catchAll(let name): "..." + (name ?? "")
            case .optional(let name): ":" + name + "?"
            case .oneOrMore(let name): ":" + name + "+"
            }
        }

        /// Whether this is a rest segment (`...`, `:name?`, `:name+`): last, of a variable
        /// number of segments, ranked after every fixed segment at its position.
        public var isRest: Bool {
            switch self {
            case .catchAll, .optional, .oneOrMore: true
            case .constant, .parameter, .wildcard: false
            }
        }

        /// How many segments a rest segment takes: at least `minimum`, at most `maximum`
        /// (nil: no bound); nil for a fixed segment.
        public var restArity: (minimum: Int, maximum: Int?)? {
            switch self {
            case .catchAll: (0, nil)
            case .optional: (0, 1)
            case .oneOrMore: (1, nil)
            case .constant, .parameter, .wildcard: nil
            }
        }
    }

    public let segments: [Segment]
    /// The canonical text (`description`), kept: ids, summaries and lints read it, and most
    /// sources are already canonical, so it usually shares the source's storage.
    private let text: String

    /// Whether two strings have the same UTF-8 bytes (not Swift's canonical equivalence).
    package static func sameBytes(_ a: String, _ b: String) -> Bool {
        let compared = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in sameBytes(x, y) }
        }
        return compared.flatMap { $0 } ?? a.utf8.elementsEqual(b.utf8)
    }

    /// ``sameBytes(_:_:)-(String,String)`` for optional strings: both nil, or the same bytes.
    /// Everything a reload keeps from the tree before is compared this way, so a reload gives
    /// the saved file's own spelling (`Café` precomposed or decomposed), as a fresh load does.
    package static func sameBytes(_ a: String?, _ b: String?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case (let x?, let y?): sameBytes(x, y)
        default: false
        }
    }

    /// Whether two byte buffers are equal (a plain loop: the generic `elementsEqual` over
    /// buffer slices cost the matcher's build 13 M instructions at 10k routes).
    @inline(__always)
    static func sameBytes(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Bool {
        guard x.count == y.count else { return false }
        for index in 0..<x.count where x[index] != y[index] { return false }
        return true
    }

    static func hashBytes(_ tag: UInt8, _ text: String, into hasher: inout Hasher) {
        hasher.combine(tag)
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Parses a pattern. A pattern starting with `./` is relative to `base`.
    ///
    /// - Throws: ``RouteDefinitionError`` for an empty or invalid parameter name, a `...`
    ///   that is not last, a repeated parameter name, a relative pattern with no base, or
    ///   more segments than a request may have (``Request/maximumSegments``).
    public init(_ source: String, relativeTo base: Pattern? = nil) throws(RouteDefinitionError) {
        // One pass over the bytes: patterns are parsed for every endpoint at every (re)load.
        var text = source
        let parsed = text.withUTF8 { bytes in Self.parse(bytes, source: source, base: base) }
        switch parsed {
        case .success(let (segments, canonical)):
            guard segments.count <= Request.maximumSegments else {
                let shown = source.count > 60 ? source.prefix(60) + "…" : source[...]
                throw RouteDefinitionError(
                    "pattern '\(shown)' has \(segments.count) segments; a request has at most \(Request.maximumSegments), so it could never match"
                )
            }
            self.segments = segments
            self.text = canonical ? source : Self.text(of: segments)
        case .failure(let error): throw error
        }
    }

    private static func parse(
        _ bytes: UnsafeBufferPointer<UInt8>, source: String, base: Pattern?
    ) -> Result<([Segment], Bool), RouteDefinitionError> {
        func string(_ range: Range<Int>) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }
        var index = 0
        var segments: [Segment] = []
        let isRelative = bytes.count >= 2 && bytes[0] == UInt8(ascii: ".") && bytes[1] == Bytes.slash
        if isRelative {
            guard let base else {
                return .failure(
                    RouteDefinitionError("pattern '\(source)': a relative pattern ('./…') needs an enclosing endpoint"))
            }
            if let last = base.segments.last, last.isRest {
                return .failure(
                    RouteDefinitionError(
                        "pattern '\(source)': cannot extend '\(base)', which ends in '\(last.text)'"))
            }
            segments = base.segments
            index = 2
        }
        segments.reserveCapacity(segments.count + 4)
        let inherited = segments.count
        var skippedSlashes = 0
        var seen: Set<String>?
        while index < bytes.count {
            guard bytes[index] != Bytes.slash else {
                skippedSlashes += 1
                index += 1
                continue
            }
            let start = index
            while index < bytes.count && bytes[index] != Bytes.slash { index += 1 }
            let segment: Segment
            let dot = UInt8(ascii: ".")
            if index - start >= 3 && bytes[start] == dot && bytes[start + 1] == dot && bytes[start + 2] == dot {
                var rest = index
                while rest < bytes.count && bytes[rest] == Bytes.slash { rest += 1 }
                guard rest == bytes.count else {
                    return .failure(
                        RouteDefinitionError(
                            "pattern '\(source)': '\(string(start..<index))' must be the last segment"))
                }
                let name = (start + 3)..<index
                if !name.isEmpty, let error = checkName(bytes, name, source: source) { return .failure(error) }
                segment = .catchAll(name.isEmpty ? nil : string(name))
            } else if bytes[start] == Bytes.colon {
                var name = (start + 1)..<index
                // `:name?` and `:name+`: a rest segment, last only.
                let modifier = index - 1 > start ? bytes[index - 1] : 0
                let isRest = modifier == UInt8(ascii: "?") || modifier == UInt8(ascii: "+")
                if isRest {
                    name = (start + 1)..<(index - 1)
                    var rest = index
                    while rest < bytes.count && bytes[rest] == Bytes.slash { rest += 1 }
                    guard rest == bytes.count else {
                        return .failure(
                            RouteDefinitionError(
                                "pattern '\(source)': '\(string(start..<index))' must be the last segment (declare a second route for the other form)"
                            ))
                    }
                }
                if name.count == 1 && bytes[name.lowerBound] == UInt8(ascii: "_") {
                    guard !isRest else {
                        return .failure(
                            RouteDefinitionError(
                                "pattern '\(source)': '\(string(start..<index))' binds nothing: name it (':id\(Character(UnicodeScalar(modifier)))')"
                            ))
                    }
                    segment = .wildcard
                } else {
                    if let error = checkName(bytes, name, source: source) { return .failure(error) }
                    if !isRest {
                        segment = .parameter(string(name))
                    } else if modifier == UInt8(ascii: "?") {
                        segment = .optional(string(name))
                    } else {
                        segment = .oneOrMore(string(name))
                    }
                }
            } else {
                segment = .constant(string(start..<index))
            }
            if let name = segment.parameterName {
                // A scan for the usual short pattern; a set once it is long (no quadratic
                // load time for a hostile script).
                let repeated: Bool
                if segments.count < 16 {
                    repeated = segments.contains { $0.parameterName == name }
                } else {
                    var names = seen.take() ?? Set(segments.compactMap(\.parameterName))
                    repeated = !names.insert(name).inserted
                    seen = names
                }
                if repeated {
                    return .failure(RouteDefinitionError("pattern '\(source)': parameter '\(name)' appears twice"))
                }
            }
            segments.append(segment)
        }
        let own = segments.count - inherited
        return .success((segments, !isRelative && skippedSlashes == max(0, own - 1)))
    }

    /// A pattern from segments (no checks beyond those of parsing).
    public init(segments: [Segment]) {
        self.segments = segments
        self.text = Self.text(of: segments)
    }

    private static func text(of segments: [Segment]) -> String {
        var result = ""
        for (position, segment) in segments.enumerated() {
            if position > 0 { result.append("/") }
            switch segment {
            case .constant(let c): result.append(c)
            case .parameter(let name):
                result.append(":")
                result.append(name)
            case .wildcard: result.append(":_")
            case .catchAll, .optional, .oneOrMore: result.append(segment.text)
            }
        }
        return result
    }

    /// Equal when the segments are (constants and names by their bytes).
    public static func == (lhs: Pattern, rhs: Pattern) -> Bool { lhs.segments == rhs.segments }

    public func hash(into hasher: inout Hasher) { hasher.combine(segments) }

    /// Letters, digits and `_`, not starting with a digit; nil when valid.
    private static func checkName(
        _ bytes: UnsafeBufferPointer<UInt8>, _ name: Range<Int>, source: String
    ) -> RouteDefinitionError? {
        guard !name.isEmpty else { return RouteDefinitionError("pattern '\(source)': empty parameter name") }
        func isLetter(_ b: UInt8) -> Bool { (65...90).contains(b) || (97...122).contains(b) || b == UInt8(ascii: "_") }
        var valid = isLetter(bytes[name.lowerBound])
        for k in name where !(isLetter(bytes[k]) || (48...57).contains(bytes[k])) { valid = false }
        guard valid else {
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[name]), as: UTF8.self)
            return RouteDefinitionError(
                "pattern '\(source)': invalid parameter name '\(text)' (letters, digits and _, not starting with a digit)"
            )
        }
        return nil
    }

    /// The canonical text: `books/:id`, `""` for the root.
    public var description: String { text }

    /// The names of the parameters that bind values, in order.
    public var parameterNames: [String] { segments.compactMap(\.parameterName) }

    /// Whether this is the bare catch-all `...` (or `...name`), which ranks after everything.
    public var isBareCatchAll: Bool {
        if segments.count == 1, case .catchAll = segments[0] { return true }
        return false
    }

    /// Whether the pattern ends in a rest segment (`...`, `:name?` or `:name+`), which ranks
    /// after a pattern that ends there.
    public var endsInCatchAll: Bool { segments.last?.isRest == true }
}

extension Pattern.Segment {
    /// The name this segment binds, if any.
    public var parameterName: String? {
        switch self {
        case .parameter(let name), .optional(let name), .oneOrMore(let name): name
        case .catchAll(let name): name
        case .constant, .wildcard: nil
        }
    }
}
