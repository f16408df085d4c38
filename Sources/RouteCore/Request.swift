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

    /// The request as given.
    public var original: String
    /// The percent-decoded path segments.
    public var segments: [String]
    /// The decoded query items; a repeated key keeps the last value.
    public var query: [String: String]
    /// The decoded fragment, if the request had one.
    public var fragment: String?

    /// The normalized path: segments joined by `/`, no leading slash.
    public var path: String { segments.joined(separator: "/") }

    public var description: String { original }

    /// Builds a request from parts (no parsing).
    public init(segments: [String], query: [String: String] = [:], fragment: String? = nil, original: String? = nil) {
        self.segments = segments
        self.query = query
        self.fragment = fragment
        self.original = original ?? Self.format(segments: segments, query: query, fragment: fragment)
    }

    /// Parses a request string or URL.
    ///
    /// - Throws: ``RouteError`` of kind `invalidRequest` for bad percent-encoding, invalid
    ///   UTF-8, a path over 8 KiB or over 128 segments.
    public init(parsing string: String) throws(RouteError) {
        let parts = RequestParts(string)
        self.original = string
        guard parts.path.count <= Self.maximumPathBytes else {
            throw RouteError(
                .invalidRequest, "the path is \(parts.path.count) bytes long (the limit is \(Self.maximumPathBytes))")
        }
        var segments: [String] = []
        var index = 0
        for raw in parts.path.split(separator: Bytes.slash, omittingEmptySubsequences: true) {
            index += 1
            guard index <= Self.maximumSegments else {
                throw RouteError(.invalidRequest, "the path has more than \(Self.maximumSegments) segments")
            }
            segments.append(try Self.decode(raw, plusIsSpace: false, what: "segment \(index)"))
        }
        self.segments = segments
        var query: [String: String] = [:]
        if let rawQuery = parts.query {
            for item in rawQuery.split(separator: Bytes.ampersand, omittingEmptySubsequences: true) {
                let pair = item.split(separator: Bytes.equals, maxSplits: 1, omittingEmptySubsequences: false)
                let key = try Self.decode(pair[0], plusIsSpace: true, what: "the query")
                let value = pair.count > 1 ? try Self.decode(pair[1], plusIsSpace: true, what: "the query") : ""
                query[key] = value
            }
        }
        self.query = query
        self.fragment = try parts.fragment.map { (raw) throws(RouteError) in
            try Self.decode(raw, plusIsSpace: false, what: "the fragment")
        }
    }

    private static func decode(_ raw: ArraySlice<UInt8>, plusIsSpace: Bool, what: String) throws(RouteError) -> String {
        if !raw.contains(Bytes.percent) && !(plusIsSpace && raw.contains(Bytes.plus)) {
            // Already valid UTF-8: it came from a String.
            return String(decoding: raw, as: UTF8.self)
        }
        guard let bytes = Bytes.percentDecoded(raw, plusIsSpace: plusIsSpace) else {
            let text = String(decoding: raw, as: UTF8.self)
            throw RouteError(.invalidRequest, "bad percent-encoding in \(what) ('\(text)')")
        }
        guard let string = Bytes.validString(bytes) else {
            let text = String(decoding: raw, as: UTF8.self)
            throw RouteError(.invalidRequest, "invalid UTF-8 after percent-decoding \(what) ('\(text)')")
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

/// A request string split into path, query and fragment bytes, with any scheme and host
/// handled. Shared by ``Request`` and the matcher's fast path.
struct RequestParts {
    var path: ArraySlice<UInt8>
    var query: ArraySlice<UInt8>?
    var fragment: ArraySlice<UInt8>?

    init(_ string: String) {
        let bytes = Array(string.utf8)
        var start = 0
        var end = bytes.count
        var fragment: ArraySlice<UInt8>?
        var query: ArraySlice<UInt8>?
        if let hash = bytes.firstIndex(of: Bytes.hash) {
            fragment = bytes[(hash + 1)...]
            end = hash
        }
        if let question = bytes[..<end].firstIndex(of: Bytes.question) {
            query = bytes[(question + 1)..<end]
            end = question
        }
        if end > 0, let pathStart = bytes.withUnsafeBufferPointer({ Bytes.pathStart(afterSchemeIn: $0, end: end) }) {
            start = pathStart
        }
        self.path = bytes[start..<end]
        self.query = query
        self.fragment = fragment
    }
}
