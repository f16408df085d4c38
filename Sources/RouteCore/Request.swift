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
/// Rules (SPEC "Requests"): a leading `/` is optional and empty segments are dropped; a
/// custom scheme's host is the first segment, an http(s) host is dropped; segments are
/// percent-decoded after splitting (`%2F` stays inside its segment); in the query `+` is a
/// space and a repeated key keeps its last value. Malformed input throws
/// ``RouteError/Kind/invalidRequest``.
public struct Request: Equatable, Sendable, CustomStringConvertible {
    /// Longest path accepted, in bytes.
    public static let maximumPathBytes = 8 * 1024
    /// Most segments accepted.
    public static let maximumSegments = 128

    /// Copied into resolutions, states and activations: behind one copy-on-write reference.
    private struct Fields: Sendable {
        var original: String
        var segments: [String]
        var query: [String: String]
        var fragment: String?
    }

    private var storage: CopyOnWrite<Fields>

    /// The request as given.
    public var original: String {
        get { storage.value.original }
        set { storage.value.original = newValue }
    }
    /// The percent-decoded path segments.
    public var segments: [String] {
        get { storage.value.segments }
        set { storage.value.segments = newValue }
    }
    /// The decoded query items; a repeated key keeps the last value.
    public var query: [String: String] {
        get { storage.value.query }
        set { storage.value.query = newValue }
    }
    /// The decoded fragment, if the request had one.
    public var fragment: String? {
        get { storage.value.fragment }
        set { storage.value.fragment = newValue }
    }

    public static func == (lhs: Request, rhs: Request) -> Bool {
        lhs.storage.isIdentical(to: rhs.storage)
            || (lhs.original == rhs.original && lhs.segments == rhs.segments && lhs.query == rhs.query
                && lhs.fragment == rhs.fragment)
    }

    /// The normalized path: segments joined by `/`, no leading slash. A `/`, `%`, `?` or `#`
    /// inside a segment stays percent-encoded (`a%2F42`), so dispatching the path again gives
    /// the same segments; everything else reads decoded.
    public var path: String {
        segments.map { segment in
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
                segments: segments, query: query, fragment: fragment))
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
                Fields(original: string, segments: parts.segments, query: parts.query, fragment: parts.fragment))
        case .failure(let error): throw error
        }
    }

    private typealias Parsed = (segments: [String], query: [String: String], fragment: String?)

    /// Splits and decodes the request bytes in place (one allocation for the segments,
    /// one for a query).
    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<Parsed, RouteError> {
        do throws(RouteError) {
            let parts = RequestParts(bytes)
            let pathLength = parts.path.count
            guard pathLength <= maximumPathBytes else {
                throw RouteError(
                    .invalidRequest, "the path is \(pathLength) bytes long (the limit is \(maximumPathBytes))")
            }
            var count = 0
            var previous = Bytes.slash
            var scan = parts.path.lowerBound
            while scan < parts.path.upperBound {
                if bytes[scan] != Bytes.slash && previous == Bytes.slash { count += 1 }
                previous = bytes[scan]
                scan += 1
            }
            guard count <= maximumSegments else {
                throw RouteError(.invalidRequest, "the path has more than \(maximumSegments) segments")
            }
            var segments: [String] = []
            segments.reserveCapacity(count)
            var segmentStart = parts.path.lowerBound
            var position = segmentStart
            while position <= parts.path.upperBound {
                if position == parts.path.upperBound || bytes[position] == Bytes.slash {
                    if position > segmentStart {
                        let number = segments.count + 1
                        segments.append(
                            try decode(bytes, segmentStart..<position, plusIsSpace: false, what: "segment \(number)"))
                    }
                    segmentStart = position + 1
                }
                position += 1
            }
            var query: [String: String] = [:]
            if let rawQuery = parts.query {
                var itemStart = rawQuery.lowerBound
                var position = itemStart
                while position <= rawQuery.upperBound {
                    defer { position += 1 }
                    guard position == rawQuery.upperBound || bytes[position] == Bytes.ampersand else { continue }
                    if position > itemStart {
                        let item = itemStart..<position
                        let equals = item.first { bytes[$0] == Bytes.equals }
                        let keyRange = itemStart..<(equals ?? position)
                        let key = try decode(bytes, keyRange, plusIsSpace: true, what: "the query")
                        let value =
                            if let equals {
                                try decode(bytes, (equals + 1)..<position, plusIsSpace: true, what: "the query")
                            } else { "" }
                        query[key] = value
                    }
                    itemStart = position + 1
                }
            }
            let fragment = try parts.fragment.map { (range) throws(RouteError) in
                try decode(bytes, range, plusIsSpace: false, what: "the fragment")
            }
            return .success((segments, query, fragment))
        } catch {
            return .failure(error)
        }
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
        return string
    }

    /// The canonical request string of parts: encoded path, sorted query, fragment.
    public static func format(segments: [String], query: [String: String], fragment: String?) -> String {
        var result = segments.map { Bytes.percentEncoded($0) }.joined(separator: "/")
        if !query.isEmpty {
            result += "?"
            result += query.sorted { $0.key < $1.key }
                .map { Bytes.percentEncoded($0.key, query: true) + "=" + Bytes.percentEncoded($0.value, query: true) }
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
