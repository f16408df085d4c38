import Foundation
import RouteCore
import RouteCoreOracle
import Testing

@testable import RouteScript

@Suite struct ExportJSONTests {
    static let examples = [
        "books.lua", "featherweight.lua", "routerservice.lua", "animals.lua", "device.lua", "shop.lua",
        "catalog.lua",
    ]

    /// The script's own functions, supplied as the app would supply its hooks by name.
    static func hooks(from tree: RouteTree) -> RouteHooks {
        var hooks = RouteHooks()
        for endpoint in tree.endpoints {
            let id = tree.nodes[endpoint.node].id
            for (parameter, validator) in endpoint.definition.validators where validator.isPredicate {
                hooks.validators[id + "#where." + parameter] = { try validator.accepts($0) }
            }
            for key in endpoint.definition.querySchema?.fields ?? [] {
                guard let validator = key.validator, validator.isPredicate else { continue }
                hooks.validators[id + "#query." + key.name] = { try validator.accepts($0) }
            }
            for item in endpoint.guards {
                let owner = tree.nodes[item.node].id
                if let enabled = item.enabled { hooks.enabled[owner + "#enabled"] = enabled }
                if let redirect = item.redirect { hooks.redirects[owner + "#redirect"] = redirect }
            }
        }
        for (index, leave) in tree.leaveGuards {
            hooks.leave[tree.nodes[index].id + "#leave"] = leave
        }
        return hooks
    }

    /// Every endpoint's path with its parameters set, named requests, deep links, misses.
    static func requests(for tree: RouteTree) -> [String] {
        var requests: [String] = []
        for endpoint in tree.endpoints {
            let node = tree.nodes[endpoint.node]
            let names = endpoint.definition.pattern?.parameterNames ?? []
            let params = Dictionary(uniqueKeysWithValues: names.map { ($0, "7") })
            if let request = try? tree.request(for: node.nodeID, params: params) {
                requests.append(request.path)
                requests.append(request.path + "?title=Dune%20II#top")
                requests.append("myapp://" + request.path)
            }
            if let name = endpoint.name {
                requests.append(name + "|" + JSONWriter.stringObject(params))
                requests.append(name + "|{}")
            }
        }
        requests += ["", "nowhere/at/all", "books/x", "animals/tiger", "zoos/berlin", "%zz", "login", "books/42"]
        // Query schemas: fitting, defaulted, refused and listed values (catalog.lua).
        requests += [
            "products?page=2&sort=price&tags=a&tags=b&sale=1", "products?page=abc", "orders?status=open",
            "orders?status=lost", "orders", "product/7/reviews", "docs/a/b",
        ]
        // Back and forth: the plans depend on what is shown.
        return requests + requests.reversed()
    }

    @Test(arguments: examples)
    func anExportedTreeResolvesAndPlansLikeTheScript(example name: String) throws {
        let host = try RouteScriptHost(contentsOf: example(name))
        let scripted = try #require(host.routeTree)
        let json = try host.exportJSON()
        let loaded = try RouteTree(json: json, hooks: Self.hooks(from: scripted))
        #expect(loaded.nodes.map(\.id) == scripted.nodes.map(\.id))
        #expect(loaded.nodes.map(\.title) == scripted.nodes.map(\.title))
        #expect(loaded.endpoints.map(\.definition.displayText) == scripted.endpoints.map(\.definition.displayText))
        // Exporting the loaded tree again gives the same text: nothing was lost.
        #expect(loaded.exportJSON(source: name) == json)
        // The export names the script by its file name only: no folder of this machine ships.
        #expect(json.contains("\"source\": \"\(name)\""))
        #expect(!json.contains(repositoryRoot))

        let a = Router(tree: scripted, presenter: HeadlessPresenter())
        let b = Router(tree: loaded, presenter: HeadlessPresenter())
        var compared = 0
        for request in Self.requests(for: scripted) {
            let left = Result { try a.dispatch(request) }
            let right = Result { try b.dispatch(request) }
            switch (left, right) {
            case (.success(let x), .success(let y)):
                #expect(x.resolution == y.resolution, "\(name): \(request)")
                #expect(x.plan.operations == y.plan.operations, "\(name): \(request)")
                compared += 1
            case (.failure(let x), .failure(let y)):
                #expect("\(x)" == "\(y)", "\(name): \(request)")
            default:
                Issue.record("\(name): \(request): \(left) vs \(right)")
            }
        }
        #expect(compared >= 10)
        #expect(a.rootPresentable?.rendered() == b.rootPresentable?.rendered())
    }

    /// A query key's function `where` is exported as a hook (`ID#query.KEY`) that the app
    /// supplies; without it the load fails naming it.
    @Test func aQueryKeysFunctionValidatorIsAHook() throws {
        let host = RouteScriptHost()
        try host.load(
            source: """
                return stack {
                  endpoint { "products", query = { size = { "number", optional = true, where = function(v) return tonumber(v) > 0 end } } },
                  endpoint { "products", id = "other" },
                }
                """, name: "q.lua")
        let scripted = try #require(host.routeTree)
        let json = try host.exportJSON()
        #expect(
            json.contains(#""size": {"type": "number", "optional": true, "where": {"hook": "products#query.size"}}"#))
        #expect(scripted.requiredHooks().validators == ["products#query.size"])
        #expect(throws: RouteDefinitionError.self) { try RouteTree(json: json) }
        let loaded = try RouteTree(json: json, hooks: Self.hooks(from: scripted))
        for request in ["products?size=2", "products?size=-1", "products?size=x", "products"] {
            #expect(
                try loaded.resolve(request).route == scripted.resolve(request).route, "\(request)")
        }
        #expect(try loaded.nodes[loaded[loaded.resolve("products?size=-1").route].node].id == "other")
    }

    /// A leave guard is exported as a hook (`ID#leave`); an app without Lua supplies it and
    /// the router asks it as the script's did (the discard recipe).
    @Test func aLeaveGuardIsAHookTheAppSupplies() throws {
        let host = try RouteScriptHost(contentsOf: repositoryRoot + "/examples/recipes/discard.lua")
        let scripted = try #require(host.routeTree)
        let json = try host.exportJSON()
        #expect(json.contains(#""leave": "accounts/transfer#leave""#))
        #expect(scripted.requiredHooks().leave == ["accounts/transfer#leave"])
        let error = #expect(throws: RouteDefinitionError.self) { try RouteTree(json: json) }
        #expect(error?.message.contains("accounts/transfer#leave") == true, "\(error?.message ?? "")")
        var hooks = RouteHooks()
        hooks.leave["accounts/transfer#leave"] = { _, to in
            to == "accounts/transfer/review" ? .go : .ask("Discard this transfer?")
        }
        let router = Router(tree: try RouteTree(json: json, hooks: hooks), presenter: HeadlessPresenter())
        try router.dispatch("accounts/transfer")
        #expect(try router.dispatch("accounts/transfer/review").confirmation == nil)
        #expect(try router.back().confirmation?.question == nil, "back to the transfer: it is not removed")
        #expect(try router.back().confirmation?.question == "Discard this transfer?")
        try router.confirm()
        #expect(router.state.request?.path == "accounts")
    }

    /// A gate in an app without Lua: the exported splash recipe's guard is a hook that throws
    /// `GuardWait`; the router waits, a flag answers, a timeout falls to the fallback.
    @Test func aGateIsAHookThatThrowsGuardWait() throws {
        let host = try RouteScriptHost(contentsOf: repositoryRoot + "/examples/recipes/splash.lua")
        let json = try host.exportJSON()
        var hooks = RouteHooks()
        hooks.enabled["junction:home#enabled"] = { context in
            guard let session = context.flags["session"] else { throw GuardWait(screen: "splash", timeout: 5) }
            return session == "valid"
        }
        let router = Router(tree: try RouteTree(json: json, hooks: hooks), presenter: HeadlessPresenter())
        try router.dispatch("home/orders/7")
        #expect(router.state.request?.original == "splash" && router.waiting?.deadline == 5)
        try router.setFlag("session", "valid")
        #expect(router.state.request?.original == "home/orders/7")
        try router.setFlag("session", nil)
        try router.dispatch("settings")
        try router.advanceClock(by: 5)
        #expect(router.state.request?.original == "signin")
    }

    /// The checks the export fuzzer makes (`scripts/fuzz export`, `ExportCase`), on every
    /// example's export and 300 seeded mutations of each: cut, repeated and swapped spans, and
    /// JSON tokens and escapes put in at random. Nothing crashes, a refusal says why, parsed
    /// JSON writes back as itself, and a tree that loads exports as a tree that loads the same.
    @Test(arguments: examples)
    func theReaderHoldsItsRoundTripsOnMutatedExports(example name: String) throws {
        let host = RouteScriptHost()
        try host.load(contentsOf: example(name))
        let json = try host.exportJSON()
        #expect(ExportCase(json).problem() == nil)
        let tokens = [
            "{", "}", "[", "]", ",", ":", "\"", "null", "true", "0", "-1.5e300", "1e999", "\"kind\"",
            "\"endpoint\"", "\"stack\"", "\"children\"", "\"pattern\"", "\"regex\"", "\"id\"", "\"\\u0000\"",
            "\"\\u001f\\t\"",
            "\"\\ud800\"", "\"\\ud83d\\ude00\"", "\"a\\\"b\"", "\"é\u{301}\"", "\"\u{2028}\"", "\\", "\"books/:id\"",
            "\"regex:^a+$\"", "\"modals\"", "\"validators\"",
        ]
        let contents = [
            "\\u001f", "\\u0000x", "a\\\"b", "\\ud83d\\ude00", "é\u{301}", "\u{2028}", "books/:id", "\\\\", "",
            "x#enabled", "regex:(a|b)+", "a/:b/c...", "\\/", "日本",
        ]
        var generator = SeededGenerator(seed: UInt64(name.utf8.count) &* 7_919)
        let original = Array(json.unicodeScalars)
        let hooks = Self.hooks(from: try #require(host.routeTree))
        var problems: [String] = []
        var loaded = 0
        for _ in 0..<300 {
            var scalars = original
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let start = Int.random(in: 0..<scalars.count, using: &generator)
                let end = min(scalars.count, start + Int.random(in: 0...40, using: &generator))
                switch Int.random(in: 0..<5, using: &generator) {
                case 4:
                    // A string's text replaced: the JSON stays valid, the values change.
                    guard let open = scalars[start...].firstIndex(of: "\""),
                        let close = scalars[(open + 1)...].firstIndex(of: "\"")
                    else { break }
                    let content = contents[Int.random(in: 0..<contents.count, using: &generator)]
                    scalars.replaceSubrange((open + 1)..<close, with: content.unicodeScalars)
                case 0: scalars.removeSubrange(start..<end)
                case 1: scalars.insert(contentsOf: scalars[start..<end], at: start)
                case 2:
                    let other = Int.random(in: 0..<scalars.count, using: &generator)
                    scalars.swapAt(start, other)
                default:
                    let token = tokens[Int.random(in: 0..<tokens.count, using: &generator)]
                    scalars.insert(contentsOf: token.unicodeScalars, at: start)
                }
                if scalars.isEmpty { scalars = original }
            }
            var text = ""
            text.unicodeScalars.append(contentsOf: scalars)
            if let problem = ExportCase(text).problem() { problems.append(problem) }
            if (try? RouteTree(json: text, hooks: hooks)) != nil { loaded += 1 }
        }
        #expect(problems.isEmpty, "\(problems.count) problems, the first: \(problems.first ?? "")")
        // Not only refusals: some mutations (a repeated field, a changed title) still load.
        #expect(loaded > 10, "\(loaded) of 300 mutations loaded")
    }

    @Test func theExportNamesTheHooksAndPresentersTheAppMustSupply() throws {
        let folder = ScriptFolder()
        let path = folder.write(
            "hooks.lua",
            """
            return switcher {
              endpoint { "login", presenter = "LoginScreen" },
              junction { id = "main", enabled = function(ctx) return ctx.flags.signed == "yes" end, fallback = "login",
                stack { endpoint { "books/:id", where = { id = function(v) return #v < 4 end },
                                   redirect = function(ctx) return nil end,
                                   presenter = { update = function(view) end } } },
                endpoint { "about" },
              },
            }
            """)
        let host = RouteScriptHost()
        host.registerPresenter("LoginScreen", HostPresenter<HeadlessPresentable>())
        try host.load(contentsOf: path)
        let required = try host.requiredHooks()
        #expect(required.enabled == ["main#enabled"])
        #expect(required.validators == ["books/:id#where.id"])
        #expect(required.redirects == ["books/:id#redirect"])
        #expect(required.presenters == ["LoginScreen", "books/:id#presenter"])
        let json = try host.exportJSON()
        #expect(json.contains(#""hooks": {"validators": ["books/:id#where.id"], "enabled": ["main#enabled"]"#))

        // Without its hooks the tree does not load, and the error names every one missing.
        let error = #expect(throws: RouteDefinitionError.self) { try RouteTree(json: json) }
        #expect(
            error?.message
                == "exported tree: the app supplied no hook for main#enabled, books/:id#redirect, books/:id#where.id")

        var hooks = RouteHooks()
        // Hooks are @Sendable (a tree may be used from any thread): app state they read is too.
        let signedIn = Locked(false)
        hooks.enabled["main#enabled"] = { _ in signedIn.withLock { $0 } }
        hooks.validators["books/:id#where.id"] = { $0.count < 4 }
        hooks.redirects["books/:id#redirect"] = { context in context.params["id"] == "0" ? "login" : nil }
        let tree = try RouteTree(json: json, hooks: hooks)
        #expect(tree.nodes[tree.nodeIndex["login"]!].presenter == "LoginScreen")
        #expect(tree.nodes[tree.nodeIndex["books/:id"]!].presenter == "books/:id#presenter")
        let router = Router(tree: tree, presenter: HeadlessPresenter())
        #expect(try router.dispatch("books/12").resolution.request.path == "login", "refused: the fallback")
        signedIn.withLock { $0 = true }
        #expect(try router.dispatch("books/12").resolution.request.path == "books/12")
        #expect(try router.dispatch("books/0").resolution.request.path == "login", "the app's redirect")
        #expect(throws: RouteError.self) { try router.dispatch("books/12345") }
    }

    @Test(arguments: [
        ("[]", "exported tree: not a JSON object"),
        ("{\"root\": {}}", "exported tree: no \"luna\" format version (is this a `luna export json` file?)"),
        ("{\"luna\": 2, \"root\": {}}", "exported tree: format 2, this build reads format 1 (export it again)"),
        ("{\"luna\": 1}", "exported tree: no \"root\" node"),
        (
            "{\"luna\": 1, \"root\": {\"kind\": \"tabs\"}}",
            "exported tree: root: unknown kind 'tabs' (switcher, junction, stack or endpoint)"
        ),
        (
            "{\"luna\": 1, \"root\": {\"kind\": \"stack\", \"children\": [{\"kind\": \"endpoint\", \"pattern\": 3}]}}",
            "exported tree: root.children[0]: 'pattern' must be a string"
        ),
        (
            "{\"luna\": 1, \"root\": {\"kind\": \"endpoint\", \"pattern\": \"a/:id\", \"where\": {\"id\": {\"regex\": \"[\"}}}}",
            "exported tree: root.where.id: invalid regular expression '['"
        ),
        ("{\"luna\": 1, \"root\": {\"kind\": \"stack\"}}", "stack: a stack needs at least one node"),
        (
            "{\"luna\": 1, \"root\": {\"kind\": \"stack\", \"children\": [{\"kind\": \"endpoint\", \"pattern\": \"a\", \"location\": \"app.lua:3\"},{\"kind\": \"endpoint\", \"pattern\": \"a\", \"location\": \"app.lua:4\"}]}}",
            "app.lua:4: endpoint: duplicate id 'a' (first at app.lua:3)"
        ),
        ("{\"luna\": 1, \"root\": ", "exported tree: invalid JSON at offset 20: unexpected end"),
        // Unknown fields are errors: a misspelled "where" would silently drop a validator.
        (
            "{\"luna\": 1, \"root\": {\"kind\": \"endpoint\", \"pattern\": \"a/:id\", \"wehre\": {}}}",
            "exported tree: root: unknown field 'wehre' (known fields: kind, id, title, location, presenter, enabled, redirect, fallback, children, modals, initial, leave, pushes, pattern, regex, name, where, link, query)"
        ),
        (
            "{\"luna\": 1, \"root\": {\"kind\": \"endpoint\", \"pattern\": \"a\", \"query\": {\"page\": {\"type\": \"integer\"}}}}",
            "exported tree: root.query.page: a query key has a 'type' (int, number, bool, string) or 'values'"
        ),
        (
            "{\"luna\": 1, \"root\": {\"kind\": \"endpoint\", \"pattern\": \"a\", \"query\": {\"page\": {\"type\": \"int\", \"default\": \"x\"}}}}",
            "exported tree: root.query.page: query 'page': the default 'x' is not an int"
        ),
        (
            "{\"luna\": 1, \"root\": {\"kind\": \"stack\", \"pattern\": \"a\"}}",
            "exported tree: root: unknown field 'pattern' ('pattern' is only for endpoints)"
        ),
        (
            "{\"luna\": 1, \"root\": {\"kind\": \"endpoint\", \"pattern\": \"a/:id\", \"where\": {\"id\": {\"regexp\": \"x\"}}}}",
            "exported tree: root.where.id: unknown field 'regexp' (known fields: regex, hook)"
        ),
        (
            "{\"luna\": 1, \"rooot\": {}, \"root\": {\"kind\": \"endpoint\", \"pattern\": \"a\"}}",
            "exported tree: top level: unknown field 'rooot'"
        ),
    ])
    func malformedExportsAreRefusedWithAPlace(json: String, message: String) {
        let error = #expect(throws: RouteDefinitionError.self) { try RouteTree(json: json) }
        #expect(error?.message.hasPrefix(message) == true, "\(error?.message ?? "")")
    }
}

@Suite struct ExportSwiftTests {
    /// The checked-in generated file is what `luna export swift` writes today (not stale).
    /// It is the Swift host example's file; the test target compiles it through a symlink.
    @Test func theGeneratedFileIsCurrent() throws {
        let host = try RouteScriptHost(contentsOf: example("books.lua"))
        let fresh = SwiftExport.source(
            for: try #require(host.routeTree), typeName: "BooksRoute", source: "examples/books.lua")
        let checkedIn = try ScriptFile.read(repositoryRoot + "/examples/swift-host/Sources/BooksHost/BooksRoute.swift")
        #expect(
            checkedIn == fresh,
            "run: luna export swift examples/books.lua --type BooksRoute -o examples/swift-host/Sources/BooksHost/BooksRoute.swift"
        )
    }

    /// Property: a path built by a generated constructor from random values dispatches to
    /// the same route, with the same parameters, query and fragment.
    @Test func typedRoutesRoundTripThroughTheMatcher() throws {
        let host = try RouteScriptHost(contentsOf: example("books.lua"))
        var generator = SeededGenerator(seed: 20_261_123)
        let alphabet = Array("abcXYZ019 /%?#&=+;:@!$'()*,~.-_é日本🙂\u{7F}\t")
        func text(_ minimum: Int = 1) -> String {
            String(
                (0..<Int.random(in: minimum...12, using: &generator)).map { _ in
                    alphabet.randomElement(using: &generator)!
                })
        }
        func digits() -> String { String(Int.random(in: 0...99_999, using: &generator)) }
        for _ in 0..<500 {
            var query: [String: String] = [:]
            for _ in 0..<Int.random(in: 0...3, using: &generator) { query[text()] = text(0) }
            let fragment = Bool.random(using: &generator) ? text(0) : nil
            let route: BooksRoute
            var params: [String: String] = [:]
            switch Int.random(in: 0..<5, using: &generator) {
            case 0:
                params = ["id": text()]
                route = .book(id: params["id"]!, query: query, fragment: fragment)
            case 3:
                // A route with no name: its constructor is named after its pattern.
                params = ["id": digits()]  // orders' ids are digits (its `where`)
                route = .ordersId(id: params["id"]!, query: query, fragment: fragment)
            case 4:
                route = .delivery(query: query, fragment: fragment)
            case 1:
                params = ["type": text(), "id": digits()]
                route = .story(type: params["type"]!, id: params["id"]!, query: query, fragment: fragment)
            default:
                route = .allNews(query: query, fragment: fragment)
            }
            let outcome = try host.dispatch(route.path)
            #expect(outcome.route == route.route, "\(route.path)")
            #expect(outcome.name == route.name, "\(route.path)")
            #expect(outcome.resolution.params == params, "\(route.path)")
            #expect(outcome.resolution.request.query == query, "\(route.path)")
            #expect(outcome.resolution.request.fragment == fragment, "\(route.path)")
        }
    }

    @Test(arguments: [
        ("all_news", "allNews"), ("book-id", "bookId"), ("2fa", "_2fa"), ("default", "`default`"),
        ("café", "café"), ("a b", "aB"), ("", "route"),
    ])
    func namesBecomeSwiftIdentifiers(name: String, identifier: String) {
        #expect(SwiftExport.identifier(name) == identifier)
    }

    /// Every route gets a constructor; one with no name is named after its pattern, and a
    /// name already taken gets a number its comment explains.
    @Test func everyRouteGetsAConstructorAndCollisionsAreVisible() throws {
        let tree = try RouteTree(
            root: .stack([
                .endpoint("orders/:id"), .endpoint("archive", name: "ordersId"), .endpoint(""),
                .endpoint("files/..."),
            ]))
        let source = SwiftExport.source(for: tree, source: "t.lua")
        #expect(source.contains(#"public static func ordersId(query: [String: String] = [:]"#), "the named one")
        #expect(source.contains("/// `orders/:id` (`ordersId2`: `ordersId` is another route's)"))
        #expect(source.contains(#"public static func ordersId2(id: String, "#))
        #expect(source.contains(#"public static func root(query: "#))
        #expect(source.contains(#"public static func filesRest(rest: String = "", "#))
        #expect(source.contains(#"Route(route: "orders/:id", segments: ["orders", id], "#))
    }

    @Test func routesThatCannotBeFilledInAreNamedInAComment() throws {
        let tree = try RouteTree(
            root: .stack([
                .endpoint("files/...path", name: "file"), .endpoint("any/:_", name: "any"),
                .endpoint("default/:class", name: "default"),
            ]))
        let source = SwiftExport.source(for: tree, source: "t.lua")
        #expect(source.contains("    // 'any' (any/:_) cannot be filled in: a regex or ':_'."))
        #expect(source.contains(#"public static func file(path: String, "#))
        #expect(source.contains(#"segments: ["files"] + path.split(separator: "/").map(String.init)"#))
        #expect(source.contains("public static func `default`(`class`: String, "))
        #expect(source.contains(#"segments: ["default", `class`]"#))
    }
}

/// `luna export swift` on hostile names and patterns: every string from the script is
/// escaped for where it lands (a string literal, a comment), every generated name is a valid
/// identifier, and the file parses and typechecks against RouteCore under Swift 6 with
/// warnings as errors (`swiftc`).
@Suite struct HostileSwiftExportTests {
    static let hostile: [(pattern: String, name: String)] = [
        ("inj\n}\nextension Never { static func pwned() { print(\"pwned\") } }\n//", "injected"),
        ("a\u{2028}b/:id", "init"),
        ("bell\u{7}/:x", "ring\u{7}"),
        ("q\"uote\\/:self", "self"),
        ("c\r/:Type", "Type"),
        ("d\u{85}e/:in", "class"),
        ("e/:x", "\u{301}accent"),
        ("f/:init", "2fa"),
        ("g/:y", "_"),
        ("h/:z", "a\"b\n}\nlet boom = 1\n//"),
        ("i*/*/:default", "default"),
    ]

    /// The folder SwiftPM builds the modules in (beside the test bundle).
    static var modules: String {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let beside = bundle.appendingPathComponent("Modules").path
        return FileManager.default.fileExists(atPath: beside + "/RouteCore.swiftmodule")
            ? beside : repositoryRoot + "/.build/debug/Modules"
    }

    static func swiftc(_ arguments: [String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swiftc"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Writes `source` (as Route.swift) and `use` beside it in a fresh folder, checks that the
    /// file parses on its own, and typechecks both under Swift 6 with warnings as errors.
    static func typecheck(_ source: String, using use: String) throws -> (Int32, String) {
        let folder = NSTemporaryDirectory() + "luna-swift-export-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/Route.swift"
        try source.write(toFile: file, atomically: true, encoding: .utf8)
        try use.write(toFile: folder + "/Use.swift", atomically: true, encoding: .utf8)
        let (parsed, parseOutput) = try swiftc(["-parse", file])
        guard parsed == 0 else { return (parsed, parseOutput) }
        return try swiftc([
            "-typecheck", "-swift-version", "6", "-warnings-as-errors", "-I", modules, file, folder + "/Use.swift",
        ])
    }

    /// Every example's routes, named or not, export to a file that typechecks under Swift 6
    /// with warnings as errors.
    @Test func everyExamplesExportTypechecks() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: repositoryRoot + "/examples")
            .filter { $0.hasSuffix(".lua") && !$0.hasSuffix("_test.lua") }.sorted()
        #expect(names.count >= 6)
        let folder = NSTemporaryDirectory() + "luna-swift-examples-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var files: [String] = []
        for name in names {
            let host = try RouteScriptHost(contentsOf: example(name))
            let tree = try #require(host.routeTree)
            let typeName = SwiftExport.identifier(String(name.dropLast(4))).capitalized.filter(\.isLetter) + "Route"
            let source = SwiftExport.source(for: tree, typeName: typeName, source: "examples/" + name)
            let constructors = source.components(separatedBy: "public static func ").count - 1
            let comments = source.components(separatedBy: "cannot be filled in").count - 1
            #expect(constructors + comments == tree.endpoints.count, "\(name): a constructor or a comment per route")
            let file = folder + "/\(typeName).swift"
            try source.write(toFile: file, atomically: true, encoding: .utf8)
            files.append(file)
        }
        let (checked, output) = try Self.swiftc(
            ["-typecheck", "-swift-version", "6", "-warnings-as-errors", "-I", Self.modules] + files)
        #expect(checked == 0, "\(output)")
    }

    /// Query keys become typed arguments (an enumeration a nested enum, a list an array, a
    /// required key a plain argument), `:id?` an optional and `:path+` a string; keys and values
    /// that are Swift keywords or clash with the constructor's own labels still give a file that
    /// typechecks under Swift 6 with warnings as errors, and uses of the typed API compile.
    @Test func typedQueryArgumentsAndRestSegmentsTypecheck() throws {
        var products = NodeSpec.endpoint("products", name: "products")
        products.endpoint?.query = try QuerySchema([
            try QueryField("page", .int, default: "1"),
            try QueryField("sort", .oneOf(["new", "top", "a b", "default", "rawValue", "a-b"]), default: "new"),
            try QueryField("ids", .int, list: true),
            try QueryField("sale", .bool, optional: true),
            try QueryField("size", .number, optional: true),
            try QueryField("q", .string),
            try QueryField("query", .string, optional: true),
            try QueryField("lists", .string, list: true),
        ])
        var onlyLists = NodeSpec.endpoint("tags", name: "tags")
        onlyLists.endpoint?.query = try QuerySchema([try QueryField("tag", .string, list: true)])
        let tree = try RouteTree(
            root: .stack([
                products, onlyLists, .endpoint("notes/:id?", name: "note"), .endpoint("files/:path+", name: "files"),
            ]))
        let source = SwiftExport.source(for: tree, typeName: "Route", source: "q.lua")
        #expect(source.contains("public enum ProductsSort: String, Hashable, Sendable, CaseIterable {"), "\(source)")
        #expect(source.contains(#"case aB = "a b""#) && source.contains(#"case aB2 = "a-b""#))
        #expect(source.contains(#"case `default` = "default""#) && source.contains(#"case rawValue_ = "rawValue""#))
        #expect(source.contains("public static func note(id: String? = nil, "))
        let (checked, output) = try Self.typecheck(
            source,
            using: """
                import RouteCore
                let paths = [
                    Route.products(ids: [1, 2], lists_: ["y"], page: 2, q: "dune", query_: "x", sale: true, size: 2.5, sort: .aB).path,
                    Route.products(q: "dune").path, Route.tags(tag: ["a", "b"]).path, Route.tags().path,
                    Route.note().path, Route.note(id: "7").path, Route.files(path: "a/b").path,
                ]
                let sorts: [Route.ProductsSort] = Route.ProductsSort.allCases
                """)
        #expect(checked == 0, "\(output)\n\(source)")
        // What the constructors put in: typed values as the matcher reads them, a list as one
        // item per value (RouteCore's own encoder).
        #expect(source.contains(#"if let page { query["page"] = String(page) }"#))
        #expect(source.contains(#"if !ids.isEmpty { lists["ids"] = ids.map { String($0) } }"#))
        #expect(source.contains(#"if let sale { query["sale"] = (sale ? "true" : "false") }"#))
        #expect(source.contains(#"query["q"] = q"#))
        #expect(
            Request.format(segments: ["products"], query: ["page": "2"], lists: ["ids": ["1", "2"]], fragment: nil)
                == "products?ids=1&ids=2&page=2")
    }

    @Test func hostileNamesAndPatternsGiveAFileThatTypechecks() throws {
        let tree = try RouteTree(
            root: .stack(Self.hostile.map { NodeSpec.endpoint($0.pattern, name: $0.name) }))
        let source = SwiftExport.source(for: tree, typeName: "Route", source: "evil\n}\nlet x = 1 //.lua")
        // The injected text is inside literals and comments, never a line of code.
        for line in source.split(separator: "\n") {
            let code = line.drop { $0 == " " }
            #expect(!code.hasPrefix("extension Never") && !code.hasPrefix("let boom") && !code.hasPrefix("let x"))
        }
        #expect(!source.contains("\u{7}") && !source.contains("\u{2028}") && !source.contains("\u{85}"))
        // A use of every constructor, so a name that is not what it seems fails to compile.
        let (checked, output) = try Self.typecheck(
            source,
            using: """
                import RouteCore
                let paths = [
                    Route.injected().path, Route.init_(id: "1").path, Route.ring(x: "1").path,
                    Route.self_(self_: "1").path, Route.Type_(Type_: "1").path, Route.`class`(in: "1").path,
                    Route._\u{301}accent(x: "1").path, Route._2fa(init_: "1").path, Route.route2(y: "1").path,
                    Route.aBLetBoom1(z: "1").path, Route.`default`(default: "1").path,
                ]
                """)
        #expect(checked == 0, "\(output)\n\(source)")
        // The constructors build the paths the router matches.
        #expect(source.contains(#"name: "injected", segments: ["inj\u{a}}\u{a}extension Never"#))
    }
}
