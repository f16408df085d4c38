import Testing

@testable import RouteCore

@Suite struct PatternTests {
    @Test func parsesEverySegmentKind() throws {
        let pattern = try Pattern("/files/:owner/:_/...path/")
        #expect(pattern.segments == [.constant("files"), .parameter("owner"), .wildcard, .catchAll("path")])
        #expect(pattern.description == "files/:owner/:_/...path")
        #expect(pattern.parameterNames == ["owner", "path"])
        #expect(try Pattern("").segments.isEmpty)
        #expect(try Pattern("...").isBareCatchAll)
        #expect(try !Pattern("a/...").isBareCatchAll)
    }

    /// The canonical text drops every empty segment, whichever way the source was written,
    /// and equal patterns are equal whatever their source.
    @Test(arguments: [
        ("books/:id", "books/:id"), ("/books/:id", "books/:id"), ("books//:id", "books/:id"),
        ("books/:id/", "books/:id"), ("//", ""), ("", ""), ("/", ""), ("a", "a"), ("...rest", "...rest"),
    ])
    func theCanonicalTextDropsEmptySegments(source: String, text: String) throws {
        let pattern = try Pattern(source)
        #expect(pattern.description == text)
        #expect(pattern == (try Pattern(text)))
        #expect(Pattern(segments: pattern.segments).description == text)
    }

    @Test func longPatternsFindRepeatedNamesToo() throws {
        let names = (0..<5_000).map { ":p\($0)" }
        // Repeated names are found (in linear time) before the length is refused.
        #expect(try Pattern(names.prefix(128).joined(separator: "/")).parameterNames.count == 128)
        #expect(
            throws: RouteDefinitionError(
                "pattern '\(names.prefix(129).joined(separator: "/").prefix(60))…' has 129 segments; a request has at most 128, so it could never match"
            )
        ) { try Pattern(names.prefix(129).joined(separator: "/")) }
        #expect(
            throws: RouteDefinitionError(
                "pattern 'x/\((names + [":p7"]).joined(separator: "/"))': parameter 'p7' appears twice")
        ) {
            try Pattern("x/" + (names + [":p7"]).joined(separator: "/"))
        }
    }

    @Test func resolvesRelativePatterns() throws {
        let books = try Pattern("books")
        #expect(try Pattern("./:id", relativeTo: books).description == "books/:id")
        #expect(try Pattern("./:id", relativeTo: Pattern("")).description == ":id")
        #expect(throws: RouteDefinitionError.self) { try Pattern("./:id") }
        #expect(throws: RouteDefinitionError.self) { try Pattern("./x", relativeTo: Pattern("a/...")) }
    }

    @Test(arguments: [
        ("a/:/b", "pattern 'a/:/b': empty parameter name"),
        ("a/.../b", "pattern 'a/.../b': '...' must be the last segment"),
        ("a/:1x", "pattern 'a/:1x': invalid parameter name '1x' (letters, digits and _, not starting with a digit)"),
        ("a/:id/:id", "pattern 'a/:id/:id': parameter 'id' appears twice"),
        ("a/:id/...id", "pattern 'a/:id/...id': parameter 'id' appears twice"),
        (
            "a/...x-y",
            "pattern 'a/...x-y': invalid parameter name 'x-y' (letters, digits and _, not starting with a digit)"
        ),
    ])
    func rejectsBadPatterns(source: String, message: String) {
        #expect(throws: RouteDefinitionError(message)) { try Pattern(source) }
    }

    @Test(
        arguments: [
            ("[0-9]+", "42", true), ("[0-9]+", "4a2", false), ("[0-9]+", "", false), ("\\d{4}", "2024", true),
            ("\\d{4}", "20245", false), ("[a-z]{2,3}", "abc", true), ("[a-z]{2,3}", "abcd", false),
            ("[a-z]{2,3}", "a", false), ("^[A-Za-z0-9_-]+$", "a_b-C9", true), ("\\w+", "héllo", false),
            (
                "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",
                "123e4567-e89b-12d3-a456-426614174000", true
            ),
            (
                "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",
                "123e4567-e89b-12d3-a456-42661417400", false
            ),
            ("(en|fr)", "fr", true), ("(en|fr)", "de", false), ("a.c", "abc", true), ("[^/]+x", "abx", true),
            ("\\d+", "١٢", false), ("[a-z]*", "", true), ("x?y", "y", true),
        ] as [(String, String, Bool)])
    func validatorsMatchTheWholeValue(regex: String, value: String, expected: Bool) throws {
        let validator = try Validator(regex: regex)
        #expect(try validator.accepts(value) == expected)
    }

    @Test func commonShapesTakeTheFastPath() throws {
        for fast in ["[0-9]+", "\\d+", "\\d{4}", "[a-z]{2,3}", "[A-Za-z0-9_-]+", "\\w+", "[0-9a-f]{8}-[0-9a-f]{4}"] {
            #expect(try Validator(regex: fast).isFastPath, "\(fast)")
        }
        for slow in ["(en|fr)", "a.c", "[^/]+", "\\d+x\\d+", "a+?"] {
            #expect(try !Validator(regex: slow).isFastPath, "\(slow)")
        }
        #expect(throws: RouteDefinitionError.self) { try Validator(regex: "[0-9") }
    }
}
