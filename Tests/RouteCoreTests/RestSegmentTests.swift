import RouteCoreOracle
import Testing

@testable import RouteCore

/// `:name?` (zero or one segment) and `:name+` (one or more), docs/dsl.md "Patterns" and
/// "Ranking": parsed, matched, ranked, filled in, explained and linted.
@Suite struct RestSegmentTests {
    static func tree() throws -> RouteTree {
        try RouteTree(
            root: .stack([
                .endpoint("books", name: "books"),
                .endpoint("books/:id?", name: "book", where: ["id": try Validator(regex: "[0-9]+")]),
                .endpoint("books/new"),
                .endpoint("files/:path+", name: "files"),
                .endpoint("notes/:id?", name: "note"),
                .endpoint("pages/:page"),
                .endpoint("pages/:rest+"),
                .endpoint("..."),
            ]))
    }

    @Test func parsesAndPrints() throws {
        #expect(try Pattern("books/:id?").segments == [.constant("books"), .optional("id")])
        #expect(try Pattern("files/:path+").segments == [.constant("files"), .oneOrMore("path")])
        #expect(try Pattern("/files/:path+/").description == "files/:path+")
        #expect(try Pattern("books/:id?").parameterNames == ["id"])
        #expect(try Pattern("books/:id?").endsInCatchAll)
        for (source, message) in [
            ("a/:id?/b", "pattern 'a/:id?/b': ':id?' must be the last segment"),
            ("a/:p+/b", "pattern 'a/:p+/b': ':p+' must be the last segment"),
            ("a/:_?", "pattern 'a/:_?': ':_?' binds nothing"),
            ("a/:?", "pattern 'a/:?': empty parameter name"),
            ("a/:1x+", "pattern 'a/:1x+': invalid parameter name '1x'"),
        ] {
            #expect(throws: RouteDefinitionError.self) { try Pattern(source) }
            do { _ = try Pattern(source) } catch {
                #expect(error.message.hasPrefix(message), "\(error.message)")
            }
        }
        let base = try Pattern("books/:id?")
        #expect(throws: RouteDefinitionError.self) { try Pattern("./x", relativeTo: base) }
    }

    /// `:id?` takes zero or one segment and is not bound when absent; `:path+` one or more.
    @Test func matchesTheCountsItTakes() throws {
        let tree = try Self.tree()
        func route(_ request: String) throws -> String {
            tree[try tree.resolve(request).route].definition.displayText
        }
        // A constant route beats the optional's absent form; an exact constant its present one.
        #expect(try route("books") == "books")
        #expect(try route("books/new") == "books/new")
        #expect(try route("books/42") == "books/:id?")
        #expect(try tree.resolve("books/42").params == ["id": "42"])
        // The validator refuses `x`; two segments are more than `:id?` takes.
        #expect(try route("books/x") == "...")
        #expect(try route("books/4/2") == "...")
        // Absent: not bound (and its validator does not run on nothing).
        #expect(try route("notes") == "notes/:id?")
        #expect(try tree.resolve("notes").params == [:])
        #expect(try tree.resolve("notes/7").params == ["id": "7"])
        #expect(try route("files") == "...")
        #expect(try tree.resolve("files/a/b%2Fc").params == ["path": "a/b/c"])
        #expect(try route("files/a") == "files/:path+")
        // A parameter ranks above a rest at the same position.
        #expect(try route("pages/1") == "pages/:page")
        #expect(try route("pages/1/2") == "pages/:rest+")
        // The raw-string path and the segment path agree.
        for request in ["notes", "notes/7", "files/a/b", "books/42", "pages/1/2"] {
            let raw = try #require(try tree.matcher.match(request))
            let decoded = try #require(try tree.matcher.match(Request(parsing: request)))
            #expect(raw.route == decoded.route)
            #expect(raw.parameters(in: tree.matcher) == decoded.parameters(in: tree.matcher))
        }
    }

    @Test func reverseRoutingFillsThem() throws {
        let tree = try Self.tree()
        #expect(try tree.path(forRouteNamed: "note", values: [:]) == "notes")
        #expect(try tree.path(forRouteNamed: "note", values: ["id": "7"]) == "notes/7")
        #expect(try tree.path(forRouteNamed: "note", values: ["id": "a/b"]) == "notes/a%2Fb")
        #expect(try tree.path(forRouteNamed: "files", values: ["path": "a/b"]) == "files/a/b")
        #expect(throws: RouteError.self) { try tree.path(forRouteNamed: "files", values: [:]) }
        #expect(throws: RouteError.self) { try tree.path(forRouteNamed: "book", values: ["id": "x"]) }
    }

    @Test func explainSaysWhyACountDoesNotFit() throws {
        let tree = try Self.tree()
        let byPattern = Dictionary(
            tree.attempts(["books", "4", "2"]).map { ($0.pattern, $0.reason) }, uniquingKeysWith: { a, _ in a })
        #expect(byPattern["books/:id?"] == "segment 3: '2' is past the end of the pattern")
        let files = Dictionary(
            tree.attempts(["files"]).map { ($0.pattern, $0.reason) }, uniquingKeysWith: { a, _ in a })
        #expect(files["files/:path+"] == "segment 2: the request ends where ':path+' was expected")
        let notes = Dictionary(
            tree.attempts(["books", "x"]).map { ($0.pattern, $0.reason) }, uniquingKeysWith: { a, _ in a })
        #expect(notes["books/:id?"] == "segment 2: 'x' does not pass the validator of 'id' ('[0-9]+')")
    }

    /// The lint's coverage knows the counts: `a/...` covers `a/:x?` and `a/:x+`; `a/:x+` covers
    /// `a/:y` but not `a` or `a/:y?`; `a/:x?` covers `a/:y` but not `a/b/:c+`.
    @Test func coverageKnowsTheCounts() throws {
        func covers(_ outer: String, _ inner: String) throws -> Bool {
            Lint.covers(try Pattern(outer), [:], try Pattern(inner), [:])
        }
        #expect(try covers("a/...", "a/:x?"))
        #expect(try covers("a/...", "a/:x+"))
        #expect(try covers("a/:x+", "a/:y"))
        #expect(try covers("a/:x+", "a/b/:c?"))
        #expect(try !covers("a/:x+", "a"))
        #expect(try !covers("a/:x+", "a/:y?"))
        #expect(try covers("a/:x?", "a/:y"))
        #expect(try covers("a/:x?", "a"))
        #expect(try !covers("a/:x?", "a/b/:c+"))
        #expect(try !covers("a/:x?", "a/..."))
        #expect(try !covers("a/:x", "a/:y?"))
    }

    /// The compiled matcher, whole and patched, agrees with the reference on tables that mix
    /// `:o?` and `:m+` with every other segment (the fuzzer's alphabet has them too).
    @Test func theCompiledMatcherAgreesWithTheReference() throws {
        let tables = [
            ["a/:o?", "a", "a/:p", "a/b", "...", ":p/:m+"],
            ["a/:m+", "a/...rest", "a/:p/:o?", ":p/:q", "a/b/c"],
            [":o?", "", "...", ":m+"],
        ]
        let requests = ["", "a", "a/b", "a/b/c", "a/b/c/d", "x", "x/y", "x/y/z", "a/%61"]
        for table in tables {
            let routes = try table.map { try RouteDefinition(pattern: Pattern($0)) }
            let problem = FuzzCase(routes: routes, requests: requests).disagreement()
            #expect(problem == nil, "\(problem ?? "")")
        }
    }
}
