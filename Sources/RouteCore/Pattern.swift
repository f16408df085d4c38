/// A route pattern in MonarchRouter's convention: the full path from the root.
///
/// ```swift
/// let pattern = try Pattern("books/:id")
/// pattern.segments        // [.constant("books"), .parameter("id")]
/// try Pattern("./reviews/...rest", relativeTo: pattern).description  // "books/:id/reviews/...rest"
/// ```
///
/// Segments: a constant matches itself exactly; `:name` one segment, bound to `name`; `:_`
/// any one segment, bound to nothing; `...` (last only) zero or more segments, and `...name`
/// binds them joined with `/`. Leading and trailing `/` are ignored; `""` is the root.
public struct Pattern: Hashable, Sendable, CustomStringConvertible {
    /// One segment of a pattern.
    public enum Segment: Hashable, Sendable {
        case constant(String)
        case parameter(String)
        case wildcard
        case catchAll(String?)

        var text: String {
            switch self {
            case .constant(let c): c
            case .parameter(let name): ":" + name
            case .wildcard: ":_"
            case .catchAll(let name): "..." + (name ?? "")
            }
        }
    }

    public let segments: [Segment]
    /// The canonical text (`description`), kept: ids, summaries and lints read it, and most
    /// sources are already canonical, so it usually shares the source's storage.
    private let text: String

    /// Parses a pattern. A pattern starting with `./` is relative to `base`.
    ///
    /// - Throws: ``RouteDefinitionError`` for an empty or invalid parameter name, a `...`
    ///   that is not last, a repeated parameter name, or a relative pattern with no base.
    public init(_ source: String, relativeTo base: Pattern? = nil) throws(RouteDefinitionError) {
        // One pass over the bytes: patterns are parsed for every endpoint at every (re)load.
        let bytes = source.utf8
        var index = bytes.startIndex
        var segments: [Segment] = []
        if bytes.starts(with: "./".utf8) {
            guard let base else {
                throw RouteDefinitionError(
                    "pattern '\(source)': a relative pattern ('./…') needs an enclosing endpoint")
            }
            if case .catchAll = base.segments.last {
                throw RouteDefinitionError("pattern '\(source)': cannot extend '\(base)', which ends in '...'")
            }
            segments = base.segments
            index = bytes.index(index, offsetBy: 2)
        }
        segments.reserveCapacity(segments.count + 4)
        let inherited = segments.count
        let isRelative = index != bytes.startIndex
        var names: [String] = []
        var skippedSlashes = 0
        while index < bytes.endIndex {
            guard bytes[index] != Bytes.slash else {
                skippedSlashes += 1
                index = bytes.index(after: index)
                continue
            }
            let start = index
            while index < bytes.endIndex && bytes[index] != Bytes.slash { index = bytes.index(after: index) }
            let part = source[start..<index]
            let segment: Segment
            if part.utf8.starts(with: "...".utf8) {
                guard index == bytes.endIndex || source[index...].utf8.allSatisfy({ $0 == Bytes.slash }) else {
                    throw RouteDefinitionError("pattern '\(source)': '\(part)' must be the last segment")
                }
                let name = part.dropFirst(3)
                if !name.isEmpty { try Self.checkName(name, in: source) }
                segment = .catchAll(name.isEmpty ? nil : String(name))
            } else if part.utf8.first == Bytes.colon {
                let name = part.dropFirst()
                if name == "_" {
                    segment = .wildcard
                } else {
                    try Self.checkName(name, in: source)
                    segment = .parameter(String(name))
                }
            } else {
                segment = .constant(String(part))
            }
            if let name = segment.parameterName {
                if names.contains(name) || base?.parameterNames.contains(name) == true {
                    throw RouteDefinitionError("pattern '\(source)': parameter '\(name)' appears twice")
                }
                names.append(name)
            }
            segments.append(segment)
        }
        self.segments = segments
        let own = segments.count - inherited
        let canonical = !isRelative && skippedSlashes == max(0, own - 1)
        self.text = canonical ? source : Self.text(of: segments)
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
            case .catchAll(let name):
                result.append("...")
                if let name { result.append(name) }
            }
        }
        return result
    }

    public static func == (lhs: Pattern, rhs: Pattern) -> Bool { lhs.segments == rhs.segments }

    public func hash(into hasher: inout Hasher) { hasher.combine(segments) }

    private static func checkName(_ name: Substring, in source: String) throws(RouteDefinitionError) {
        guard let first = name.utf8.first else {
            throw RouteDefinitionError("pattern '\(source)': empty parameter name")
        }
        let isLetter = { (b: UInt8) in (65...90).contains(b) || (97...122).contains(b) || b == UInt8(ascii: "_") }
        guard isLetter(first), name.utf8.allSatisfy({ isLetter($0) || (48...57).contains($0) }) else {
            throw RouteDefinitionError(
                "pattern '\(source)': invalid parameter name '\(name)' (letters, digits and _, not starting with a digit)"
            )
        }
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

    /// Whether the pattern ends in `...`.
    public var endsInCatchAll: Bool {
        if case .catchAll = segments.last { return true }
        return false
    }
}

extension Pattern.Segment {
    /// The name this segment binds, if any.
    public var parameterName: String? {
        switch self {
        case .parameter(let name): name
        case .catchAll(let name): name
        default: nil
        }
    }
}
