import Testing

@testable import RouteCore

/// Query schemas (docs/dsl.md, "Query schemas"): typed keys, defaults, enumerations, lists,
/// validators; a misfit without default makes the route not match, and ranking goes on.
@Suite struct QuerySchemaTests {
    static func products() throws -> QuerySchema {
        try QuerySchema([
            try QueryField("page", .int, default: "1"),
            try QueryField("sort", .oneOf(["new", "top"]), default: "new"),
            try QueryField("q", .string, optional: true),
            try QueryField("tags", .string, list: true),
            try QueryField("size", .number, optional: true),
            try QueryField("sale", .bool, optional: true),
            try QueryField("ref", .string, optional: true, where: try Validator(regex: "[a-z]+")),
        ])
    }

    static func tree() throws -> RouteTree {
        var products = NodeSpec.endpoint("products", name: "products")
        products.endpoint?.query = try Self.products()
        var orders = NodeSpec.endpoint("orders", name: "orders")
        orders.endpoint?.query = try QuerySchema([try QueryField("page", .int)])
        return try RouteTree(
            root: .stack([products, .endpoint("products", id: "all-products"), orders, .endpoint("...", id: "missing")])
        )
    }

    @Test(arguments: [
        (
            QueryField.Kind.int, ["0", "42", "-7", "9223372036854775807"],
            ["", "abc", "1.5", "+1", " 1", "1e3", "9223372036854775808"]
        ),
        (.number, ["0", "1.5", "-2", "1e3", "2.5E-3"], ["", "abc", "inf", "nan", "0x10", "1.", ".5", "1e"]),
        (.bool, ["true", "false", "1", "0"], ["", "yes", "TRUE", "2"]),
        (.oneOf(["new", "top"]), ["new", "top"], ["", "New", "old"]),
        (.string, ["", "anything", "a b"], []),
    ])
    func typesTakeWhatTheySay(kind: QueryField.Kind, fits: [String], misfits: [String]) throws {
        let field = try QueryField("k", kind)
        for text in fits { #expect(field.typed(text) != nil, "\(text) fits \(field.kindDescription)") }
        for text in misfits { #expect(field.typed(text) == nil, "\(text) does not fit \(field.kindDescription)") }
    }

    @Test func defaultsFillTheRequestAndTypedValuesFollow() throws {
        let tree = try Self.tree()
        let plain = try tree.resolve("products")
        #expect(tree[plain.route].name == "products")
        #expect(plain.request.query == ["page": "1", "sort": "new"])
        // A misfit takes the default; the original request is kept as it was sent.
        let misfit = try tree.resolve("products?page=abc&sort=old&other=x")
        #expect(misfit.request.query == ["page": "1", "sort": "new", "other": "x"])
        #expect(misfit.request.original == "products?page=abc&sort=old&other=x")
        let full = try tree.resolve("products?page=3&tags=a&tags=b%20c&sale=1&size=2.5&q=dune")
        let typed = tree.typedQuery(of: full.route, full.request.query, request: full.request)
        #expect(
            typed == [
                "page": .int(3), "sort": .string("new"), "tags": .list([.string("a"), .string("b c")]),
                "sale": .bool(true), "size": .number(2.5), "q": .string("dune"),
            ])
        // A missing list is empty; an undeclared key is not typed.
        #expect(tree.typedQuery(of: plain.route, plain.request.query, request: plain.request)["tags"] == .list([]))
    }

    /// A value that does not fit and has no default: the route does not match, and the next
    /// route (the same pattern declared after it) takes the request.
    @Test func aMisfitWithoutDefaultGoesOnToTheNextRoute() throws {
        let tree = try Self.tree()
        func winner(_ request: String) throws -> String { tree.nodes[tree[try tree.resolve(request).route].node].id }
        #expect(try winner("products?ref=abc") == "products")
        #expect(try winner("products?ref=ABC") == "all-products")
        #expect(try winner("products?sale=maybe") == "all-products")
        #expect(try winner("products?tags=a") == "products")
        #expect(try winner("orders?page=2") == "orders")
        #expect(try winner("orders") == "missing")
        #expect(try winner("orders?page=x") == "missing")
        // The raw-string path and the parsed path agree.
        for request in ["products?ref=ABC", "products", "orders?page=2", "orders", "orders?page=x#f"] {
            let raw = try tree.matcher.match(request)?.route
            let parsed = try tree.matcher.match(Request(parsing: request))?.route
            #expect(raw == parsed, "\(request)")
        }
    }

    @Test func explainNamesTheKeyTheValueAndWhy() throws {
        let tree = try Self.tree()
        let reasons = tree.explain(try Request(parsing: "orders?page=x")).attempts.map(\.reason)
        #expect(reasons.contains("query 'page': 'x' is not an int"), "\(reasons)")
        let missing = tree.explain(try Request(parsing: "orders")).attempts.map(\.reason)
        #expect(missing.contains("query 'page' is required"), "\(missing)")
        let validator = tree.explain(try Request(parsing: "products?ref=ABC")).attempts.map(\.reason)
        #expect(validator.contains("query 'ref': 'ABC' does not pass its validator '[a-z]+'"), "\(validator)")
        let noRoutes = try RouteTree(root: .stack([try Self.ordersOnly()]))
        #expect(throws: RouteError.self) { try noRoutes.resolve("orders?page=x") }
        do { _ = try noRoutes.resolve("orders?page=x") } catch {
            #expect(error.kind == .noMatch)
            #expect(error.message.contains("closest: orders (query 'page': 'x' is not an int)"), "\(error.message)")
        }
    }

    static func ordersOnly() throws -> NodeSpec {
        var orders = NodeSpec.endpoint("orders", name: "orders")
        orders.endpoint?.query = try QuerySchema([try QueryField("page", .int)])
        return orders
    }

    @Test func badDeclarationsAreErrors() throws {
        #expect(throws: RouteDefinitionError.self) { try QueryField("page", .int, default: "one") }
        #expect(throws: RouteDefinitionError.self) { try QueryField("tags", .string, list: true, default: "a") }
        #expect(throws: RouteDefinitionError.self) { try QueryField("sort", .oneOf([])) }
        #expect(throws: RouteDefinitionError.self) {
            try QuerySchema([try QueryField("a", .int), try QueryField("a", .string)])
        }
        do { _ = try QueryField("page", .int, default: "one") } catch {
            #expect(error.message == "query 'page': the default 'one' is not an int")
        }
        var clash = NodeSpec.endpoint("books/:id")
        clash.endpoint?.query = try QuerySchema([try QueryField("id", .int)])
        #expect(throws: RouteDefinitionError.self) { try RouteTree(root: .stack([clash])) }
    }

    @Test func reverseRoutingChecksKeysAndWritesLists() throws {
        let tree = try Self.tree()
        #expect(try tree.path(forRouteNamed: "products", values: [:]) == "products")
        #expect(
            try tree.path(forRouteNamed: "products", values: ["page": "2"], lists: ["tags": ["a", "b c"]])
                == "products?page=2&tags=a&tags=b%20c")
        #expect(throws: RouteError.self) { try tree.path(forRouteNamed: "products", values: ["page": "x"]) }
        #expect(throws: RouteError.self) { try tree.path(forRouteNamed: "orders", values: [:]) }
        #expect(throws: RouteError.self) {
            try tree.path(forRouteNamed: "products", values: [:], lists: ["page": ["1", "2"]])
        }
        do { _ = try tree.path(forRouteNamed: "orders", values: [:]) } catch {
            #expect(error.message == "route 'orders' needs query 'page' (an int)")
        }
    }

    /// A reload that adds a schema to a route with the same pattern compiles the matcher that
    /// a whole compilation gives (the patch compares schemas, not only patterns).
    @Test func aPatchedMatcherSeesASchemaAddedOrRemoved() throws {
        let schema = try QuerySchema([try QueryField("page", .int)])
        let plain = [try RouteDefinition(pattern: Pattern("orders")), try RouteDefinition(pattern: Pattern("books"))]
        let typed = [
            try RouteDefinition(pattern: Pattern("orders"), query: schema),
            try RouteDefinition(pattern: Pattern("books")),
        ]
        for (before, after) in [(plain, typed), (typed, plain)] {
            let patched = Matcher(routes: after, patching: Matcher(routes: before), from: before)
            let whole = Matcher(routes: after)
            for request in ["orders", "orders?page=1", "orders?page=x", "books"] {
                #expect(try patched.match(request)?.route == whole.match(request)?.route, "\(request)")
            }
        }
        #expect(try Matcher(routes: typed).match("orders") == nil)
    }

    /// Every value of a repeated key, in order; the last when the query was changed for it.
    @Test func queryValuesReadRepeatedKeys() throws {
        var request = try Request(parsing: "a?t=1&t=2&u=x&t=3")
        #expect(request.queryValues("t") == ["1", "2", "3"])
        #expect(request.queryValues("u") == ["x"])
        #expect(request.queryValues("v") == [])
        request.query["t"] = "9"
        #expect(request.queryValues("t") == ["9"])
    }
}
