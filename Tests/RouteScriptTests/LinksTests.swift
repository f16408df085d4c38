import Foundation
import RouteCore
import Testing

@testable import RouteScript

/// Host-aware links and the platform files made from them (examples/shop.lua declares
/// `links = { schemes = { "myshop" }, hosts = { "shop.example", "*.shop.example" } }`).
@Suite struct LinksTests {
    static func shop() throws -> RouteScriptHost {
        try RouteScriptHost(contentsOf: repositoryRoot + "/examples/shop.lua")
    }

    static let accepted: [(String, String)] = [
        ("https://shop.example/product/42", "product/:id"),
        ("HTTPS://Shop.Example/product/42?ref=mail#top", "product/:id"),
        ("https://m.shop.example/account/orders/7", "account/orders/:id"),
        ("https://user@a.b.shop.example:8443/home", "home"),
        ("myshop://product/42", "product/:id"),
        ("MyShop://cart", "cart"),
        ("product/42", "product/:id"),
        ("/search", "search"),
    ]

    static let refused: [(String, String)] = [
        ("https://evil.example/product/42", "'evil.example' is not one of this app's link hosts"),
        ("https://shop.example.evil/product/42", "'shop.example.evil' is not one of this app's link hosts"),
        ("https://notshop.example/home", "'notshop.example' is not one of this app's link hosts"),
        ("http://shop.example@evil.example/home", "'evil.example' is not one of this app's link hosts"),
        ("otherapp://product/42", "'otherapp://' is not one of this app's URL schemes (links.schemes: myshop)"),
    ]

    @Test(arguments: 0..<accepted.count)
    func aDeclaredHostOrSchemeMatchesLikeItsPath(index: Int) throws {
        let (request, route) = Self.accepted[index]
        #expect(try Self.shop().dispatch(request).route == route)
    }

    @Test(arguments: 0..<refused.count)
    func anotherHostOrSchemeIsAClearInvalidRequest(index: Int) throws {
        let (request, message) = Self.refused[index]
        let host = try Self.shop()
        try host.dispatch("home")
        let before = host.state
        do {
            try host.dispatch(request)
            Issue.record("\(request) was dispatched")
        } catch let error as RouteError {
            #expect(error.kind == .invalidRequest)
            #expect(error.message.hasPrefix(message), "\(error.message)")
        }
        #expect(host.state == before)
    }

    /// Undeclared: today's behaviour, any host and scheme.
    @Test func aScriptWithoutLinksTakesAnyHost() throws {
        let host = try RouteScriptHost(contentsOf: repositoryRoot + "/examples/books.lua")
        #expect(try host.dispatch("https://evil.example/books/42").route == "books/:id")
        #expect(try host.dispatch("whatever://books/7").route == "books/:id")
    }

    static let badDeclarations: [(String, String)] = [
        (#"return stack { endpoint { "a", actions = { { "Go" } } } }"#, "actions[1] does nothing"),
        (
            #"return stack { endpoint { "a", actions = { { "Go", flag = { x = 1 } } } } }"#,
            "actions[1].flag maps flag names to strings"
        ),
        (#"return stack { endpoint { "a", actions = { "Go" } } }"#, "actions[1] must be { \"Label\""),
        (#"return stack { endpoint { "a", rows = { "Dune" } } }"#, "rows[1] must be { \"Label\", go = \"request\" }"),
        (#"return stack { endpoint { "a", rows = { { "Dune" } } } }"#, "rows[1] needs go = \"request\""),
        (#"return stack { endpoint { "a", rows = { { "Dune", go = "a", to = "b" } } } }"#, "rows[1] has 'to'"),
        (
            #"return stack { endpoint { "a", rows = { { "Dune", go = "a", push = "a" } } } }"#,
            "rows[1] has more than one of go, push and result"
        ),
        (
            #"return stack { endpoint { "a", actions = { { "Go", go = "a", push = "a" } } } }"#,
            "actions[1] has go and push"
        ),
        (
            #"return stack { pushes = { "nowhere" }, endpoint { "a" } }"#,
            "pushes entry 'nowhere' of stack 'root' names no screen"
        ),
        (#"return stack { pushes = "a", endpoint { "a" } }"#, "field 'pushes' must be a list of strings"),
        (#"return stack { pushes = { 1 }, endpoint { "a" } }"#, "field 'pushes'[1] must be a string"),
        (
            #"return junction { pushes = { "a" }, endpoint { "a" } }"#,
            "'pushes' (what else may be pushed onto it) is declared on a stack"
        ),
        (#"return stack { endpoint { "a", id = "a#2" } }"#, "id 'a#2' ends in #NUMBER"),
        (
            #"return stack { endpoint { "a", links = { hosts = { "x.com" } } } }"#,
            "'links' (the app's link hosts and schemes) is declared on the root node"
        ),
        (
            #"return stack { links = { hosts = { "exa mple.com" } }, endpoint { "a" } }"#,
            "'exa mple.com' is not a host name"
        ),
        (
            #"return stack { links = { schemes = { "https" } }, endpoint { "a" } }"#,
            "links are universal links: list their hosts instead"
        ),
        (#"return stack { links = { schemes = { "1app" } }, endpoint { "a" } }"#, "'1app' is not a URL scheme"),
        (
            #"return stack { links = { domains = { "x.com" } }, endpoint { "a" } }"#,
            "field 'links' has schemes, hosts and http"
        ),
        (#"return stack { links = { hosts = "x.com" }, endpoint { "a" } }"#, "links.hosts must be a list of strings"),
        (#"return stack { endpoint { "a", link = "no" } }"#, "field 'link' must be a boolean"),
        (#"return stack { endpoint { "a/:id", sample = { id = "42" } } }"#, "sample maps parameter names to lists"),
        (#"return stack { endpoint { "a/:id", sample = { id = {} } } }"#, "sample.id has no values"),
        (#"return stack { endpoint { "a/:id", sample = { id = { true } } } }"#, "sample.id[1] must be a string"),
        (
            #"return stack { endpoint { "a/:id", sample = { name = { "x" } } } }"#,
            "sample names 'name', which is not a parameter of 'a/:id' (its parameters: id)"
        ),
        (
            #"return stack { endpoint { "a", sample = { id = { "1" } } } }"#,
            "which is not a parameter of 'a' (it has none)"
        ),
    ]

    @Test(arguments: 0..<badDeclarations.count)
    func aBadDeclarationFailsTheLoadWithItsLine(index: Int) {
        let (source, message) = Self.badDeclarations[index]
        Self.expectLoadError(source, message)
    }

    /// Loading the one-line `source` fails with `message`, located on line 1.
    static func expectLoadError(_ source: String, _ message: String) {
        do {
            try RouteScriptHost().load(source: source, name: "script.lua")
            Issue.record("loaded: \(source)")
        } catch let error as RouteScriptError {
            #expect(error.message.contains(message), "\(error.message)")
            #expect(error.location?.line == 1, "\(String(describing: error.location))")
        } catch {
            Issue.record("\(error)")
        }
    }

    /// The exported tree carries the links and the excluded routes, and enforces them too.
    @Test func theExportedTreeKeepsTheLinks() throws {
        let tree = try #require(try Self.shop().routeTree)
        let loaded = try RouteTree(json: tree.exportJSON(), hooks: ExportJSONTests.hooks(from: tree))
        #expect(loaded.links == tree.links)
        #expect(loaded.endpoints.map(\.linkable) == tree.endpoints.map(\.linkable))
        #expect(throws: RouteError.self) { try loaded.resolve("https://evil.example/home") }
        #expect(try loaded.resolve("https://shop.example/home").route == tree.resolve("home").route)
    }

    // MARK: apple-app-site-association

    /// Apple's documented matching: `*` any run of characters (`/` included), `?` one.
    static func appleMatches(_ pattern: String, _ path: String) -> Bool {
        let p = Array(pattern)
        let s = Array(path)
        func match(_ i: Int, _ j: Int) -> Bool {
            if i == p.count { return j == s.count }
            switch p[i] {
            case "*": return (j...s.count).contains { match(i + 1, $0) }
            case "?": return j < s.count && match(i + 1, j + 1)
            default: return j < s.count && p[i] == s[j] && match(i + 1, j + 1)
            }
        }
        return match(0, 0)
    }

    static func components(_ json: String) throws -> [[String: Any]] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let applinks = try #require(object["applinks"] as? [String: Any])
        let details = try #require(applinks["details"] as? [[String: Any]])
        #expect(details.count == 1)
        return try #require(details.first?["components"] as? [[String: Any]])
    }

    /// For every route of every example: a link to one of its paths opens the app exactly when
    /// the route the router picks for it may be opened by a link — the first component that
    /// matches decides, as Apple's does.
    @Test(arguments: ["shop.lua", "books.lua", "featherweight.lua", "animals.lua", "routerservice.lua"])
    func theFileOpensTheAppExactlyForLinkableRoutes(example: String) throws {
        let tree = try #require(try RouteScriptHost(contentsOf: repositoryRoot + "/examples/" + example).routeTree)
        let json = tree.appSiteAssociation(appIDs: ["ABCDE12345.com.example.app"])
        let components = try Self.components(json)
        #expect(!components.isEmpty)
        for component in components {
            #expect(Set(component.keys).isSubset(of: ["/", "exclude", "comment"]))
            let path = try #require(component["/"] as? String)
            #expect(path.hasPrefix("/"), "\(path)")
        }
        var checked = 0
        for endpoint in tree.endpoints {
            guard let pattern = endpoint.definition.pattern else { continue }
            let params = Dictionary(uniqueKeysWithValues: pattern.parameterNames.map { ($0, "7") })
            guard let request = try? tree.request(for: tree.nodes[endpoint.node].nodeID, params: params),
                let resolution = try? tree.resolve(request.original)
            else { continue }
            let path = "/" + request.path
            let first = components.first { Self.appleMatches($0["/"] as? String ?? "", path) }
            let opens = first.map { ($0["exclude"] as? Bool) != true } ?? false
            #expect(opens == tree[resolution.route].linkable, "\(example): \(path)")
            checked += 1
        }
        #expect(checked >= 3)
    }

    @Test func shopsCheckoutAndTheWebSitesOtherPagesStayOut() throws {
        let tree = try #require(try Self.shop().routeTree)
        let components = try Self.components(tree.appSiteAssociation(appIDs: ["ABCDE12345.com.example.shop"]))
        func opens(_ path: String) -> Bool {
            let first = components.first { Self.appleMatches($0["/"] as? String ?? "", path) }
            return first.map { ($0["exclude"] as? Bool) != true } ?? false
        }
        #expect(opens("/product/42") && opens("/account/orders/7") && opens("/home"))
        #expect(!opens("/checkout") && !opens("/checkout/pay") && !opens("/about-us"))
    }

    @Test func theURLTypesPlistIsAPropertyListWithTheSchemes() throws {
        let tree = try #require(try Self.shop().routeTree)
        let text = tree.urlTypesPropertyList(name: "com.example.shop")
        let plist = try PropertyListSerialization.propertyList(from: Data(text.utf8), format: nil)
        let types = try #require((plist as? [String: Any])?["CFBundleURLTypes"] as? [[String: Any]])
        #expect(types.count == 1)
        #expect(types.first?["CFBundleURLSchemes"] as? [String] == ["myshop"])
        #expect(types.first?["CFBundleURLName"] as? String == "com.example.shop")
        #expect(types.first?["CFBundleTypeRole"] as? String == "Viewer")
        // No schemes: an empty list, still a property list.
        let books = try #require(try RouteScriptHost(contentsOf: repositoryRoot + "/examples/books.lua").routeTree)
        let empty = try PropertyListSerialization.propertyList(
            from: Data(books.urlTypesPropertyList(name: "x").utf8), format: nil)
        #expect(((empty as? [String: Any])?["CFBundleURLTypes"] as? [Any])?.isEmpty == true)
    }

    @Test func checkWarnsAboutLinksThatOpenNothing() throws {
        for (source, message) in [
            (#"return stack { links = {}, endpoint { "a" } }"#, "links declares no scheme and no host"),
            (
                #"return stack { links = { hosts = { "x.com" } }, endpoint { "a", link = false } }"#,
                "every route has link = false"
            ),
        ] {
            let host = RouteScriptHost()
            try host.load(source: source, name: "links.lua")
            let findings = Lint(tree: try #require(host.routeTree)).findings()
            #expect(findings.map(\.message).contains { $0.contains(message) }, "\(findings.map(\.message))")
            #expect(findings.allSatisfy { $0.severity == .warning && $0.location?.line == 1 })
        }
        #expect(Lint(tree: try #require(try Self.shop().routeTree)).findings().isEmpty)
    }
}

/// `initial = "…"` on the root: where the app starts.
@Suite struct InitialRequestTests {
    @Test func theRootDeclaresWhereTheAppStartsAndTheExportKeepsIt() throws {
        let tree = try #require(try LinksTests.shop().routeTree)
        #expect(tree.initial == "home")
        let loaded = try RouteTree(json: tree.exportJSON(), hooks: ExportJSONTests.hooks(from: tree))
        #expect(loaded.initial == "home")
        #expect(try RouteScriptHost(contentsOf: repositoryRoot + "/examples/books.lua").routeTree?.initial == nil)
    }

    static let tabs = """
        return junction { title = "Main",
          stack { title = "Home", endpoint { "home", title = "Home" } },
          stack { title = "Books", initial = "books/featured?sort=new",
            endpoint { "books", title = "Books",
              children = { endpoint { "./featured", title = "Featured" }, endpoint { "./:id", title = "Book" } } },
          },
        }
        """

    /// go_router's `initialLocation`: a tab never visited shows its initial screen, activated,
    /// over the screens below it; visiting it replaces that as usual; the export keeps it.
    @Test func aTabNeverVisitedShowsItsInitialLocation() throws {
        let host = RouteScriptHost()
        try host.load(source: Self.tabs, name: "tabs.lua")
        try host.dispatch("home")
        let books = try #require(host.presentable("stack:books"))
        #expect(books.children.map(\.id) == ["books", "books/featured"])
        #expect(host.presentable("books/featured")?.activation?.query == ["sort": "new"])
        // A tap on the tab (what is on top of it, keeping its stack) shows it.
        let tap = try host.dispatch("books/featured?sort=new", keepStack: true)
        #expect(tap.route == "books/featured")
        #expect(!tap.plan.operations.contains { $0.name == "create" })
        try host.dispatch("books/7")
        try host.dispatch("home")
        #expect(host.presentable("stack:books")?.children.map(\.id) == ["books", "books/:id"], "visited: as left")
        let tree = try #require(host.routeTree)
        let loaded = try RouteTree(json: tree.exportJSON())
        #expect(loaded.tabInitials.mapValues(\.request.original) == tree.tabInitials.mapValues(\.request.original))
        #expect(tree.tabInitials.count == 1)
    }

    static let refused: [(String, String)] = [
        (#"return stack { initial = "nowhere", endpoint { "a" } }"#, "initial 'nowhere' matches no route"),
        (
            #"return junction { stack { endpoint { "a" } }, stack { initial = "a", endpoint { "b" } } }"#,
            "initial 'a' of tab 'stack:b' opens a screen outside that tab"
        ),
        (
            #"return stack { endpoint { "a", initial = "a" } }"#,
            "'initial' is declared on the root (where the app starts) or on a tab"
        ),
        (#"return stack { initial = "a/%zz", endpoint { "a/:x" } }"#, "initial 'a/%zz': bad percent-encoding"),
        (#"return stack { initial = 3, endpoint { "a" } }"#, "field 'initial' must be a string"),
    ]

    @Test(arguments: 0..<refused.count)
    func anInitialThatCannotStartIsALoadError(index: Int) {
        let (source, message) = Self.refused[index]
        LinksTests.expectLoadError(source, message)
    }
}
