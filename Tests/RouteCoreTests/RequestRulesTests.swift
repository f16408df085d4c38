import Testing

@testable import RouteCore

/// The request rules docs/dsl.md states under "Requests and parameters", each pinned here at
/// the engine (and through `luna dispatch` in RequestRulesCommandTests).
@Suite struct RequestRulesTests {
    static func tree() throws -> RouteTree {
        var root = NodeSpec.stack([
            .endpoint("search", name: "search"), .endpoint("files/...rest", name: "files"),
            .endpoint("items/:id", name: "item"),
        ])
        root.links = try LinkDomains(schemes: ["myapp"], hosts: ["app.example"])
        return try RouteTree(root: root)
    }

    /// `+` in a query is a space (form encoding, as browsers send forms and URLSearchParams
    /// reads them); `%2B` is a plus; in a path segment `+` is itself.
    @Test func plusIsASpaceInAQueryAndItselfInAPath() throws {
        #expect(try Request(parsing: "search?q=a+b").query == ["q": "a b"])
        #expect(try Request(parsing: "search?q=a%2Bb").query == ["q": "a+b"])
        let item = try Self.tree().resolve("items/a+b")
        #expect(item.params == ["id": "a+b"])
    }

    /// A repeated key keeps its last value; a key without `=` is the empty string.
    @Test func aRepeatedKeyKeepsItsLastValueAndABareKeyIsEmpty() throws {
        #expect(try Request(parsing: "search?q=a&q=c&flag").query == ["q": "c", "flag": ""])
    }

    /// `...` matches zero or more segments: `files/...rest` matches `files` (rest empty).
    @Test func aRestMatchesZeroSegmentsToo() throws {
        let tree = try Self.tree()
        #expect(try tree.resolve("files").params == ["rest": ""])
        #expect(try tree.resolve("files/x/y").params == ["rest": "x/y"])
    }

    /// A declared host's link opens the app over https only, unless `links.http` says so.
    @Test func aLinkHostIsHTTPSUnlessHTTPIsDeclared() throws {
        let tree = try Self.tree()
        #expect(try tree.resolve("https://app.example/search").route == tree.routeNames["search"])
        #expect(throws: RouteError.self) { try tree.resolve("http://app.example/search") }
        do {
            _ = try tree.resolve("http://app.example/search")
        } catch {
            #expect(error.kind == .invalidRequest)
            #expect(error.message.contains("https links only"), "\(error.message)")
        }
        let open = try LinkDomains(hosts: ["app.example"], acceptsHTTP: true)
        try open.check("http://app.example/search")
        // Another host is refused either way, naming the host.
        #expect(throws: RouteError.self) { try open.check("http://evil.example/search") }
    }

    /// Reverse routing keeps letters, digits and `- . _ ~ ! $ ' ( ) * , ; = : @` in a path
    /// segment and encodes the rest (`/ ? # % & +`, spaces, other bytes); a query key or value
    /// encodes `& = +` too.
    @Test func reverseRoutingEncodesPerPart() throws {
        let tree = try Self.tree()
        #expect(try tree.path(forRouteNamed: "item", values: ["id": "a&b+c@d/e=f"]) == "items/a%26b%2Bc@d%2Fe=f")
        #expect(
            try tree.path(forRouteNamed: "search", values: ["q": "a&b+c@d/e =x"])
                == "search?q=a%26b%2Bc@d%2Fe%20%3Dx")
    }
}
