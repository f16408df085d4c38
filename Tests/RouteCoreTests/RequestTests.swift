import RouteCoreOracle
import Testing

@testable import RouteCore

@Suite struct RequestTests {
    /// A parsed request keeps its path's bytes and makes segment strings only when asked: its
    /// segments and normalized path must be those of the same request built from the segments
    /// it reads, on seeded random paths (slashes doubled, leading and trailing, `%` escapes of
    /// `/ ? # %`, spaces, UTF-8) with and without query and fragment.
    @Test func lazilyReadSegmentsAgreeWithGivenOnes() throws {
        var generator = SeededGenerator(seed: 20_261_123)
        let pieces = ["a", "books", "42", "%2F", "%25", "%3F", "%23", "%20", "caf%C3%A9", "日本", "x+y", "", "-", "~"]
        for _ in 0..<2_000 {
            var text = ""
            for _ in 0..<Int.random(in: 0...6, using: &generator) {
                text += Bool.random(using: &generator) ? "/" : "//"
                for _ in 0..<Int.random(in: 1...3, using: &generator) {
                    text += pieces.randomElement(using: &generator)!
                }
            }
            if Bool.random(using: &generator) { text += "/" }
            if Bool.random(using: &generator) { text += "?q=1&r=a+b" }
            if Bool.random(using: &generator) { text += "#frag" }
            let parsed = try Request(parsing: text)
            let given = Request(
                segments: parsed.segments, query: parsed.query, fragment: parsed.fragment, original: parsed.original)
            #expect(parsed.path == given.path, "\(text)")
            #expect(parsed == given, "\(text)")
            #expect(try Request(parsing: parsed.path).segments == parsed.segments, "\(text)")
            var renamed = parsed
            renamed.original = "elsewhere"
            #expect(renamed.segments == parsed.segments, "\(text)")
        }
    }

    @Test(
        arguments: [
            ("books/42", ["books", "42"], [:], nil),
            ("/books/42", ["books", "42"], [:], nil),
            ("books//42/", ["books", "42"], [:], nil),
            ("books/42?title=Dune&lang=en#reviews", ["books", "42"], ["title": "Dune", "lang": "en"], "reviews"),
            ("myapp://books/42", ["books", "42"], [:], nil),
            ("myapp:///books/42", ["books", "42"], [:], nil),
            ("https://example.com/books/42?x=1", ["books", "42"], ["x": "1"], nil),
            ("HTTP://example.com:8080/books", ["books"], [:], nil),
            ("https://example.com", [], [:], nil),
            ("a%20b/c%2Fd", ["a b", "c/d"], [:], nil),
            ("a%2520b", ["a%20b"], [:], nil),
            ("search?q=dune+messiah&q=arrakis", ["search"], ["q": "arrakis"], nil),
            ("s?a%3Db=c%26d&flag", ["s"], ["a=b": "c&d", "flag": ""], nil),
            ("x#frag%20ment", ["x"], [:], "frag ment"),
            ("", [], [:], nil),
            ("/", [], [:], nil),
            ("?only=query", [], ["only": "query"], nil),
            ("caf%C3%A9", ["café"], [:], nil),
            ("a+b", ["a+b"], [:], nil),
        ] as [(String, [String], [String: String], String?)])
    func parsesRequests(input: String, segments: [String], query: [String: String], fragment: String?) throws {
        let request = try Request(parsing: input)
        #expect(request.segments == segments)
        #expect(request.query == query)
        #expect(request.fragment == fragment)
        #expect(try Request(parsing: request.path).segments == segments, "the path round-trips")
    }

    @Test(arguments: [
        ("books/%zz", "bad percent-encoding in segment 2 ('%zz')"),
        ("books/%4", "bad percent-encoding in segment 2 ('%4')"),
        ("books/%C3%28", "invalid UTF-8 after percent-decoding segment 2 ('%C3%28')"),
        ("x?a=%FF", "invalid UTF-8 after percent-decoding the query ('%FF')"),
        ("x#%", "bad percent-encoding in the fragment ('%')"),
        // One character rule for every part, raw or encoded: no NUL, no U+FFFD (what raw
        // invalid UTF-8 becomes before Luna sees it).
        ("a\u{0}b", "the request contains a NUL character"),
        ("a/%00", "segment 2 after percent-decoding contains a NUL character"),
        ("a?x=%00", "the query after percent-decoding contains a NUL character"),
        ("a#%00", "the fragment after percent-decoding contains a NUL character"),
        ("a/\u{FFFD}", "the request is not valid UTF-8 (it contains U+FFFD, the replacement character)"),
        (
            "a/%EF%BF%BD",
            "segment 2 after percent-decoding is not valid UTF-8 (it contains U+FFFD, the replacement character)"
        ),
    ])
    func rejectsMalformedRequests(input: String, message: String) {
        let error = #expect(throws: RouteError.self) { try Request(parsing: input) }
        #expect(error?.kind == .invalidRequest)
        #expect(error?.message == message)
    }

    @Test func enforcesTheLimits() {
        let long = String(repeating: "a", count: 8 * 1024 + 1)
        #expect(throws: RouteError(.invalidRequest, "the request is 8193 bytes long (the limit is 8192)")) {
            try Request(parsing: long)
        }
        // One size rule for the whole request: a long query or fragment counts too.
        let longQuery = "books?q=" + String(repeating: "x", count: 1 << 20)
        #expect(throws: RouteError(.invalidRequest, "the request is 1048584 bytes long (the limit is 8192)")) {
            try Request(parsing: longQuery)
        }
        #expect(throws: RouteError.self) { try Request(parsing: "a#" + String(repeating: "f", count: 8191)) }
        #expect((try? Request(parsing: String(repeating: "a", count: 8 * 1024))) != nil)
        let many = Array(repeating: "s", count: 129).joined(separator: "/")
        #expect(throws: RouteError(.invalidRequest, "the path has more than 128 segments")) {
            try Request(parsing: many)
        }
        #expect((try? Request(parsing: Array(repeating: "s", count: 128).joined(separator: "/"))) != nil)
    }

    @Test func formatsCanonicalRequests() {
        let request = Request(segments: ["books", "a b/c"], query: ["z": "1", "a": "x&y"], fragment: "top")
        #expect(request.original == "books/a%20b%2Fc?a=x%26y&z=1#top")
        #expect(
            (try? Request(parsing: request.original))
                == Request(
                    segments: ["books", "a b/c"], query: ["z": "1", "a": "x&y"], fragment: "top",
                    original: request.original))
    }

    @Test func readsJSON() throws {
        #expect(
            try JSONReader.parse(#"{"id":42,"t":"D\u00fcne","n":null,"b":[true,1.5e3]}"#)
                == .object([
                    ("id", .number("42")), ("t", .string("Düne")), ("n", .null),
                    ("b", .array([.bool(true), .number("1.5e3")])),
                ]))
        for bad in ["", "{", "{\"a\"}", "[1,]", "{\"a\":1}x", "\"\\q\"", "01a", "{\"a\":tru}"] {
            #expect(throws: RouteError.self) { try JSONReader.parse(bad) }
        }
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(throws: RouteError.self) { try JSONReader.parse(deep) }
    }
}

@Suite struct RequestPathRoundTripTests {
    @Test(arguments: ["a%2F42", "a%252F42", "x/%3Fq%23f", "caf%C3%A9/%25", "books/42?title=Dune#top", "/", "a%2F"])
    func thePathDispatchesToTheSameSegments(raw: String) throws {
        let request = try Request(parsing: raw)
        let again = try Request(parsing: request.path)
        #expect(again.segments == request.segments, "\(request.path)")
    }

    @Test func randomSegmentsRoundTrip() throws {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("ab/%?#é 9")
        for _ in 0..<500 {
            let segments = (0..<Int.random(in: 1...4, using: &generator)).map { _ in
                String(
                    (0..<Int.random(in: 1...6, using: &generator)).map { _ in
                        alphabet[Int.random(in: 0..<alphabet.count, using: &generator)]
                    })
            }
            let request = Request(segments: segments)
            #expect(try Request(parsing: request.path).segments == segments, "\(segments) → \(request.path)")
        }
    }

    @Test func plainPathsReadDecoded() throws {
        #expect(try Request(parsing: "caf%C3%A9/a%20b").path == "café/a b")
    }
}

@Suite struct UTF8ValidationTests {
    /// Both paths (the standard library's, and the fallback older Apple systems run) agree.
    @Test(
        arguments: [
            ([0x61, 0x62], "ab"), ([0xC3, 0xA9], "é"), ([0xF0, 0x9F, 0x99, 0x82], "🙂"), ([], ""),
            ([0xEF, 0xBF, 0xBD], "\u{FFFD}"), ([0xC3], nil), ([0xFF, 0x61], nil), ([0xED, 0xA0, 0x80], nil),
            ([0xC0, 0xAF], nil),
        ] as [([UInt8], String?)])
    func validUTF8IsDecodedAndInvalidRefused(bytes: [UInt8], text: String?) {
        #expect(String(validUTF8: bytes) == text)
        #expect(String(decodingValidUTF8: bytes) == text)
    }
}
