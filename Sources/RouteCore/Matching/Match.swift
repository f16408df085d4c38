/// The result of a successful match: which route won and where its parameters are.
///
/// Parameters are read lazily, so a match allocates nothing (up to two parameters).
///
/// ```swift
/// if let match = try matcher.match("books/42?x=1") {
///     match.route                         // index of the winning route
///     match.parameters(in: matcher)       // ["id": "42"]
/// }
/// ```
public struct Match: Sendable {
    /// Where a parameter's text lies.
    struct Span: Sendable {
        var start: Int32
        var end: Int32
        var isRest: Bool
    }

    enum Storage: Sendable {
        /// Byte ranges in the original request (no percent-escapes in its path).
        case raw(String, [Span])
        /// The same for up to two parameters, each span packed in 32 bits of the word (see
        /// ``Match/pack(_:)``): a match allocates nothing.
        case packed(String, UInt64, UInt8)
        /// Segment index ranges in decoded segments.
        case decoded([String], [Span])
        /// A whole-path regex's named groups.
        case named([(String, String)])
    }

    /// A span in 32 bits: start (16), length (15), rest (1). Raw matches have requests of at
    /// most 64 KiB and paths of at most 8 KiB, so both fit.
    @inline(__always)
    static func pack(_ span: Span) -> UInt64 {
        UInt64(UInt32(truncatingIfNeeded: span.start) & 0xFFFF)
            | UInt64(UInt32(truncatingIfNeeded: span.end - span.start) & 0x7FFF) << 16
            | (span.isRest ? 1 << 31 : 0)
    }

    @inline(__always)
    static func unpack(_ packed: UInt64, _ index: Int) -> Span {
        let bits = UInt32(truncatingIfNeeded: packed >> UInt64(32 * index))
        let start = Int32(bits & 0xFFFF)
        return Span(start: start, end: start + Int32((bits >> 16) & 0x7FFF), isRest: bits >> 31 != 0)
    }

    /// The index of the winning route in the matcher's routes.
    public let route: Int
    let storage: Storage

    /// The parameter values by name.
    public func parameters(in matcher: Matcher) -> [String: String] { parameterList(in: matcher).dictionary }

    /// The parameter values as a state holds them: a pattern's one or two parameters without
    /// a dictionary (``Parameters``).
    func parameterList(in matcher: Matcher) -> Parameters {
        switch storage {
        case .named(let pairs):
            var result = [String: String](minimumCapacity: pairs.count)
            for (name, value) in pairs { result[name] = value }
            return Parameters(result)
        case .raw, .packed, .decoded:
            let names = matcher.parameterNames[route]
            if names.isEmpty { return .empty }
            // An optional parameter the request left out is not bound.
            if names.lastIsOptional, value(at: names.count - 1).isEmpty {
                let bound = names.droppingLast
                return bound.isEmpty ? .empty : Parameters(names: bound) { value(at: $0) }
            }
            return Parameters(names: names) { value(at: $0) }
        }
    }

    /// The value of the route's `index`-th named parameter (pattern routes).
    public func value(at index: Int) -> String {
        switch storage {
        case .packed(let source, let packed, _):
            return Self.text(of: Self.unpack(packed, index), in: source)
        case .raw(let source, let spans):
            return Self.text(of: spans[index], in: source)
        case .decoded(let segments, let spans):
            let span = spans[index]
            return segments[Int(span.start)..<Int(span.end)].joined(separator: "/")
        case .named(let pairs):
            return pairs[index].1
        }
    }

    /// A span's text in a raw request.
    private static func text(of span: Span, in source: String) -> String {
        if !span.isRest,
            let value = source.utf8.withContiguousStorageIfAvailable({ bytes in
                String(decoding: UnsafeBufferPointer(rebasing: bytes[Int(span.start)..<Int(span.end)]), as: UTF8.self)
            })
        {
            // A native string's bytes, read in place (no index walking).
            return value
        }
        let utf8 = source.utf8
        let start = utf8.index(utf8.startIndex, offsetBy: Int(span.start))
        let end = utf8.index(utf8.startIndex, offsetBy: Int(span.end))
        let text = source[start..<end]
        if span.isRest && text.contains("//") {
            return text.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
        }
        return String(text)
    }
}
