/// A parsed request: the path segments that take part in matching, and the query and
/// fragment that are passed to presenters.
///
/// ```swift
/// let request = try Request(parsing: "myapp://books/42?title=Dune+Messiah#reviews")
/// request.segments  // ["books", "42"]
/// request.path      // "books/42"
/// request.query     // ["title": "Dune Messiah"]
/// request.fragment  // "reviews"
/// ```
///
/// Rules (docs/dsl.md, "Requests"): a leading `/` is optional and empty segments are dropped; a
/// custom scheme's host is the first segment, an http(s) host is dropped; segments are
/// percent-decoded after splitting (`%2F` stays inside its segment); in the query `+` is a
/// space and a repeated key keeps its last value. Malformed input throws
/// ``RouteError/Kind/invalidRequest``.
public struct Request: Equatable, Sendable, CustomStringConvertible {
    /// Longest path accepted, in bytes.
    public static let maximumPathBytes = 8 * 1024
    /// The most bytes a whole request may have: path, query and fragment, or a named request.
    public static let maximumRequestBytes = 8 * 1024
    /// Most segments accepted.
    public static let maximumSegments = 128

    /// Copied into resolutions, states and activations: behind one copy-on-write reference.
    private struct Fields: Sendable {
        var original: String
        /// The segments when given or set; nil while they are read from `original`'s path
        /// bytes (validated when parsed): a dispatch matches the raw bytes and most requests
        /// never need their segments as strings.
        var givenSegments: [String]?
        /// The path's bytes in `original` (when `givenSegments` is nil).
        var path: Range<Int>
        var query: [String: String]
        var fragment: String?
    }

    private var storage: CopyOnWrite<Fields>

    /// The request as given.
    public var original: String {
        get { storage.value.original }
        set {
            if storage.value.givenSegments == nil { storage.value.givenSegments = segments }
            storage.value.original = newValue
        }
    }
    /// The percent-decoded path segments.
    public var segments: [String] {
        get { storage.value.givenSegments ?? Self.segments(of: storage.value.original, path: storage.value.path) }
        set { storage.value.givenSegments = newValue }
    }
    /// The decoded query items; a repeated key keeps the last value.
    public var query: [String: String] {
        get { storage.value.query }
        set { storage.value.query = newValue }
    }
    /// Every value of a query key, in order, as the request repeated it (`tags=a&tags=b` →
    /// `["a", "b"]`): ``query`` keeps only the last. The values are read again from
    /// ``original``; where the query was given or changed for this key (a named request, a
    /// default filled in), its one value.
    public func queryValues(_ key: String) -> [String] {
        guard let last = query[key] else { return [] }
        var all: [String] = []
        var text = original
        text.withUTF8 { bytes in
            guard let raw = RequestParts(bytes).query else { return }
            // A parsed request's items decode (it was checked when parsed).
            Self.forEachQueryItem(bytes, raw) { keyRange, valueRange in
                guard (try? Self.decode(bytes, keyRange, plusIsSpace: true, what: "")) == key,
                    let value = try? Self.decode(bytes, valueRange, plusIsSpace: true, what: "")
                else { return }
                all.append(value)
            }
        }
        return all.last == last ? all : [last]
    }

    /// The decoded fragment, if the request had one.
    public var fragment: String? {
        get { storage.value.fragment }
        set { storage.value.fragment = newValue }
    }

    public static func == (lhs: Request, rhs: Request) -> Bool {
        lhs.storage.isIdentical(to: rhs.storage)
            || (lhs.original == rhs.original
                && ((lhs.storage.value.givenSegments == nil && rhs.storage.value.givenSegments == nil)
                    || lhs.segments == rhs.segments)
                && lhs.query == rhs.query
                && lhs.fragment == rhs.fragment)
    }

    /// The normalized path: segments joined by `/`, no leading slash. A `/`, `%`, `?` or `#`
    /// inside a segment stays percent-encoded (`a%2F42`), so dispatching the path again gives
    /// the same segments; everything else reads decoded.
    public var path: String {
        if storage.value.givenSegments == nil,
            let raw = Self.normalizedRawPath(storage.value.original, storage.value.path)
        {
            return raw
        }
        return segments.map { segment in
            guard segment.utf8.contains(where: { $0 == 0x2F || $0 == 0x25 || $0 == 0x3F || $0 == 0x23 }) else {
                return segment
            }
            var encoded = ""
            for scalar in segment.unicodeScalars {
                switch scalar {
                case "/": encoded += "%2F"
                case "%": encoded += "%25"
                case "?": encoded += "%3F"
                case "#": encoded += "%23"
                default: encoded.unicodeScalars.append(scalar)
                }
            }
            return encoded
        }.joined(separator: "/")
    }

    public var description: String { original }

    /// Builds a request from parts (no parsing).
    public init(segments: [String], query: [String: String] = [:], fragment: String? = nil, original: String? = nil) {
        storage = CopyOnWrite(
            Fields(
                original: original ?? Self.format(segments: segments, query: query, fragment: fragment),
                givenSegments: segments, path: 0..<0, query: query, fragment: fragment))
    }

    /// Parses a request string or URL.
    ///
    /// - Throws: ``RouteError`` of kind `invalidRequest` for bad percent-encoding, invalid
    ///   UTF-8, a path over 8 KiB or over 128 segments.
    public init(parsing string: String) throws(RouteError) {
        var text = string
        let parsed = text.withUTF8 { bytes in Self.parse(bytes) }
        switch parsed {
        case .success(let parts):
            storage = CopyOnWrite(
                Fields(
                    original: string, givenSegments: nil, path: parts.path, query: parts.query,
                    fragment: parts.fragment))
        case .failure(let error): throw error
        }
    }

    private typealias Parsed = (path: Range<Int>, query: [String: String], fragment: String?)

    /// The path as written when it is already normalized (no `%`, no empty segment), which
    /// is the usual case: no segment strings to make and join.
    private static func normalizedRawPath(_ original: String, _ path: Range<Int>) -> String? {
        guard !path.isEmpty else { return "" }
        // Read in place, as `segments(of:path:)` does (walking the UTF-8 view's indexes cost a
        // hook's `ctx.path` about 400 instructions).
        var text = original
        return text.withUTF8 { bytes in
            var previous = Bytes.slash
            for position in path {
                let byte = bytes[position]
                if byte == Bytes.percent || (byte == Bytes.slash && previous == Bytes.slash) { return nil }
                previous = byte
            }
            guard previous != Bytes.slash else { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[path]), as: UTF8.self)
        }
    }

    /// The segments of a validated path (see ``parse(_:)``).
    private static func segments(of original: String, path: Range<Int>) -> [String] {
        var text = original
        return text.withUTF8 { bytes in
            var segments: [String] = []
            forEachSegment(of: bytes, in: path) { range in
                // Validated when parsed; the raw text is only a fallback that cannot run.
                segments.append(
                    (try? decode(bytes, range, plusIsSpace: false, what: ""))
                        ?? String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self))
            }
            return segments
        }
    }

    /// Calls `body` with the bytes of each non-empty segment of `path`, in order.
    @inline(__always)
    private static func forEachSegment<E: Error>(
        of bytes: UnsafeBufferPointer<UInt8>, in path: Range<Int>, _ body: (Range<Int>) throws(E) -> Void
    ) throws(E) {
        var segmentStart = path.lowerBound
        var position = segmentStart
        while position <= path.upperBound {
            if position == path.upperBound || bytes[position] == Bytes.slash {
                if position > segmentStart { try body(segmentStart..<position) }
                segmentStart = position + 1
            }
            position += 1
        }
    }

    /// Splits the request bytes and validates the path's segments in place (their strings are
    /// made when asked for); decodes the query (one allocation) and the fragment.
    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<Parsed, RouteError> {
        do throws(RouteError) {
            try checkSize(bytes.count)
            try checkCharacters(bytes, what: "the request")
            let parts = RequestParts(bytes)
            let pathLength = parts.path.count
            guard pathLength <= maximumPathBytes else {
                throw RouteError(
                    .invalidRequest, "the path is \(pathLength) bytes long (the limit is \(maximumPathBytes))")
            }
            var count = 0
            forEachSegment(of: bytes, in: parts.path) { _ in count += 1 }
            guard count <= maximumSegments else {
                throw RouteError(.invalidRequest, "the path has more than \(maximumSegments) segments")
            }
            var number = 0
            try forEachSegment(of: bytes, in: parts.path) { (range) throws(RouteError) in
                number += 1
                try validate(bytes, range, what: "segment \(number)")
            }
            var query: [String: String] = [:]
            if let rawQuery = parts.query {
                try forEachQueryItem(bytes, rawQuery) { (key, value) throws(RouteError) in
                    query[try decode(bytes, key, plusIsSpace: true, what: "the query")] = try decode(
                        bytes, value, plusIsSpace: true, what: "the query")
                }
            }
            let fragment = try parts.fragment.map { (range) throws(RouteError) in
                try decode(bytes, range, plusIsSpace: false, what: "the fragment")
            }
            return .success((parts.path, query, fragment))
        } catch {
            return .failure(error)
        }
    }

    /// Calls `body` with each query item's key and value byte ranges (`&`-separated; a key
    /// without `=` has an empty value), in order.
    private static func forEachQueryItem<E: Error>(
        _ bytes: UnsafeBufferPointer<UInt8>, _ rawQuery: Range<Int>, _ body: (Range<Int>, Range<Int>) throws(E) -> Void
    ) throws(E) {
        var itemStart = rawQuery.lowerBound
        var position = itemStart
        while position <= rawQuery.upperBound {
            defer { position += 1 }
            guard position == rawQuery.upperBound || bytes[position] == Bytes.ampersand else { continue }
            if position > itemStart {
                let equals = (itemStart..<position).first { bytes[$0] == Bytes.equals }
                try body(itemStart..<(equals ?? position), (equals.map { $0 + 1 } ?? position)..<position)
            }
            itemStart = position + 1
        }
    }

    /// Throws what ``decode(_:_:plusIsSpace:what:)`` would, without making the string when
    /// there is nothing to decode.
    private static func validate(
        _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, what: @autoclosure () -> String
    ) throws(RouteError) {
        guard UnsafeBufferPointer(rebasing: bytes[range]).contains(Bytes.percent) else { return }
        _ = try decode(bytes, range, plusIsSpace: false, what: what())
    }

    private static func decode(
        _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, plusIsSpace: Bool, what: @autoclosure () -> String
    ) throws(RouteError) -> String {
        let raw = UnsafeBufferPointer(rebasing: bytes[range])
        if !raw.contains(Bytes.percent) && !(plusIsSpace && raw.contains(Bytes.plus)) {
            // Already valid UTF-8: it came from a String.
            return String(decoding: raw, as: UTF8.self)
        }
        guard let decoded = Bytes.percentDecoded(raw, plusIsSpace: plusIsSpace) else {
            let text = String(decoding: raw, as: UTF8.self)
            throw RouteError(.invalidRequest, "bad percent-encoding in \(what()) ('\(text)')")
        }
        guard let string = Bytes.validString(decoded) else {
            let text = String(decoding: raw, as: UTF8.self)
            throw RouteError(.invalidRequest, "invalid UTF-8 after percent-decoding \(what()) ('\(text)')")
        }
        try checkCharacters(string, what: "\(what()) after percent-decoding")
        return string
    }

    /// One size rule for every request: the whole of it, path, query and fragment (or a named
    /// request), at most ``maximumRequestBytes``.
    static func checkSize(_ count: Int) throws(RouteError) {
        guard count <= maximumRequestBytes else {
            throw RouteError(
                .invalidRequest, "the request is \(count) bytes long (the limit is \(maximumRequestBytes))")
        }
    }

    /// One character rule for every part of a request, raw or percent-encoded: no NUL, and no
    /// U+FFFD, which stands for bytes that were not UTF-8 (raw invalid UTF-8 reaches Luna as
    /// U+FFFD, so refusing it refuses raw invalid UTF-8 as its percent-encoded form is).
    static func checkCharacters(
        _ bytes: UnsafeBufferPointer<UInt8>, what: @autoclosure () -> String
    )
        throws(RouteError)
    {
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0 {
                throw RouteError(.invalidRequest, "\(what()) contains a NUL character")
            }
            if byte == 0xEF, index + 2 < bytes.count, bytes[index + 1] == 0xBF, bytes[index + 2] == 0xBD {
                throw RouteError(
                    .invalidRequest, "\(what()) is not valid UTF-8 (it contains U+FFFD, the replacement character)")
            }
            index += 1
        }
    }

    static func checkCharacters(_ string: String, what: @autoclosure () -> String) throws(RouteError) {
        var string = string
        var failure: RouteError?
        string.withUTF8 { bytes in
            do throws(RouteError) { try checkCharacters(bytes, what: what()) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// The canonical request string of parts: encoded path, sorted query, fragment.
    public static func format(segments: [String], query: [String: String], fragment: String?) -> String {
        format(segments: segments, query: query, lists: [:], fragment: fragment)
    }

    /// The same with list values: each of a list's values as its own `key=value` item, in
    /// order (`tags=a&tags=b`); a key in both takes the list.
    public static func format(
        segments: [String], query: [String: String], lists: [String: [String]], fragment: String?
    ) -> String {
        var result = segments.map { Bytes.percentEncoded($0) }.joined(separator: "/")
        var items: [(String, String)] = []
        for key in Set(query.keys).union(lists.keys).sorted() {
            let values = lists[key] ?? query[key].map { [$0] } ?? []
            for value in values { items.append((key, value)) }
        }
        if !items.isEmpty {
            result += "?"
            result += items.map {
                Bytes.percentEncoded($0.0, query: true) + "=" + Bytes.percentEncoded($0.1, query: true)
            }
            .joined(separator: "&")
        }
        if let fragment { result += "#" + Bytes.percentEncoded(fragment) }
        return result
    }
}

/// A request's bytes split into path, query and fragment ranges, with any scheme and host
/// handled.
struct RequestParts {
    var path: Range<Int>
    var query: Range<Int>?
    var fragment: Range<Int>?

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        var start = 0
        var end = bytes.count
        if let hash = bytes.firstIndex(of: Bytes.hash) {
            fragment = (hash + 1)..<bytes.count
            end = hash
        }
        if let question = bytes[..<end].firstIndex(of: Bytes.question) {
            query = (question + 1)..<end
            end = question
        }
        if end > 0, let pathStart = Bytes.pathStart(afterSchemeIn: bytes, end: end) { start = pathStart }
        path = start..<end
    }
}
