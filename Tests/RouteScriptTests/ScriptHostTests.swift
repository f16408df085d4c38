import LuaHost
import RouteCore
import Testing

@testable import RouteScript

/// An app's own presentable: not a HeadlessPresentable, knows nothing of Luna but the
/// attributes Lua may set.
final class Screen: ScriptViewable {
    let id: String
    let kind: NodeKind
    var title: String?
    var badge: String?
    var children: [Screen] = []
    var modal: Screen?
    var selected: Int?

    init(id: String, kind: NodeKind) {
        self.id = id
        self.kind = kind
    }

    func setScriptAttribute(_ name: String, to value: AttributeValue?) throws {
        switch name {
        case "title": title = value?.description
        case "badge": badge = value?.description
        case "forbidden": throw RouteError(.script, "Screen has no attribute 'forbidden'")
        default: break
        }
    }
}

/// The app's presenter: builds Screens, records every call in order.
final class ScreenPresenter: Presenter {
    var log: [String] = []
    var failOn: String?

    func create(_ node: RouteTree.Node, activation: Activation?) throws -> Screen {
        log.append("app create \(node.id)")
        if failOn == node.id { throw RouteError(.script, "cannot build \(node.id)") }
        return Screen(id: node.id, kind: node.kind)
    }
    func update(_ presentable: Screen, node: RouteTree.Node, activation: Activation) throws {
        log.append("app update \(node.id)")
    }
    func setStack(_ stack: Screen, node: RouteTree.Node, items: [Screen]) throws {
        log.append("app setStack \(node.id) [\(items.map(\.id).joined(separator: ","))]")
        stack.children = items
    }
    func setOptions(_ container: Screen, node: RouteTree.Node, options: [Screen]) throws {
        container.children = options
    }
    func select(_ container: Screen, node: RouteTree.Node, index: Int, option: Screen) throws {
        log.append("app select \(node.id) \(option.id)")
        container.selected = index
        if container.kind == .switcher { container.children = [option] }
    }
    func presentModal(_ modal: Screen, over presenter: Screen, node: RouteTree.Node) throws {
        log.append("app present \(modal.id)")
        presenter.modal = modal
    }
    func dismissModal(_ modal: Screen, from presenter: Screen, node: RouteTree.Node) throws {
        log.append("app dismiss \(modal.id)")
        presenter.modal = nil
    }
    func unwind(_ presentable: Screen, node: RouteTree.Node) throws {
        log.append("app unwind \(node.id)")
    }
    var transactions: [String] = []
    func begin() { transactions.append("begin") }
    func commit() { transactions.append("commit") }
    func rollback() { transactions.append("rollback") }
    func reflect(_ operation: PlanOperation, lookup: (String) -> Screen?) {
        log.append("app reflect \(operation.text)")
        if case .setStack(let id, let items) = operation { lookup(id)?.children = items.compactMap(lookup) }
    }
}

@MainActor @Suite struct ScriptHostTests {
    let script = """
        return stack {
          endpoint { "books", title = "Books",
            children = {
              endpoint { "./:id", name = "book",
                presenter = { update = function(view, ctx)
                  print("lua update " .. ctx.params.id .. " title=" .. tostring(view.title))
                  view.title = "Book " .. ctx.params.id
                end },
              },
            },
            modals = { endpoint { "./new", title = "New" } },
          },
        }
        """

    func host(_ output: Recorder) throws -> ScriptHost<ScreenPresenter> {
        var options = RouteScriptOptions()
        options.output = { line in output.append(line) }
        let host = ScriptHost(presenter: ScreenPresenter(), options: options)
        try host.load(source: script, name: "books.lua")
        return host
    }

    @Test func theAppsOwnPresentablesFollowThePlanAndLuaDecoratesThem() throws {
        let output = Recorder()
        let host = try host(output)
        try host.dispatch("books/42")
        let root = try #require(host.root)
        #expect(root.id == "root")
        #expect(root.children.map(\.id) == ["books", "books/:id"])
        // The Lua hook's write reached the app's Screen, and the headless model too.
        #expect(root.children[1].title == "Book 42")
        #expect(host.model?.children[1].title == "Book 42")
        #expect(host["books/:id"] === root.children[1])

        try host.dispatch("books/new")
        #expect(host["books"]?.modal?.id == "books/new")
        weak let sheet = host["books/new"]
        try host.back()
        #expect(sheet == nil, "nothing keeps an unwound presentable alive")
        #expect(host["books"]?.modal == nil)
        #expect(host.presenter.log.contains("app dismiss books/new"))
        #expect(host.presentables["books/new"] == nil, "the dismissed modal was unwound")
        #expect(host.presenter.log.contains("app unwind books/new"))
    }

    @Test func swiftPresentersBoundByIdNameAndKindRunBeforeTheLuaHook() throws {
        let output = Recorder()
        let host = try host(output)
        var byName = HostPresenter<Screen>()
        byName.update = { screen, context in
            output.append("swift update \(context.name ?? "-") \(screen.id) title=\(screen.title ?? "nil")")
            screen.badge = "new"
        }
        var byKind = HostPresenter<Screen>()
        byKind.create = { screen, context in output.append("kind create \(context.kind.rawValue) \(screen.id)") }
        var byID = HostPresenter<Screen>()
        byID.create = { screen, _ in output.append("id create \(screen.id)") }
        byID.setStack = { stack, items in output.append("id setStack \(stack.id) \(items.count)") }
        host.bind(.name("book"), byName)
        host.bind(.kind(.endpoint), byKind)
        host.bind(.id("root"), byID)
        try host.dispatch("books/7")
        #expect(
            output.lines == [
                "id create root",
                "kind create endpoint books",
                // The route-name binding beats the kind default, and runs before Lua.
                "swift update book books/:id title=nil",
                "lua update 7 title=books/:id",
                "id setStack root 2",
            ])
        #expect(host["books/:id"]?.badge == "new")
        #expect(host["books/:id"]?.title == "Book 7")
        // The app's presenter ran first for every operation.
        #expect(host.presenter.log.prefix(3) == ["app create root", "app create books", "app create books/:id"])
    }

    @Test func aScriptNamedPresenterBeatsBindingsAndMustBeRegistered() throws {
        let host = ScriptHost(presenter: ScreenPresenter())
        var named = HostPresenter<Screen>()
        named.create = { screen, _ in screen.title = "named" }
        var byID = HostPresenter<Screen>()
        byID.create = { screen, _ in screen.title = "by id" }
        host.registerPresenter("Home", named)
        host.bind(.id("home"), byID)
        host.bind(.id("other"), byID)
        try host.load(source: "return stack { endpoint { 'home', presenter = 'Home' }, endpoint { 'other' } }")
        try host.dispatch("home")
        #expect(host["home"]?.title == "named")
        try host.dispatch("other")
        #expect(host["other"]?.title == "by id")
        host.unbind(.id("other"))
        let error = #expect(throws: RouteScriptError.self) {
            try ScriptHost(presenter: ScreenPresenter()).load(source: "return endpoint { 'x', presenter = 'Nope' }")
        }
        #expect(error?.message.contains("unknown presenter 'Nope'") == true)
    }

    @Test func aFailedDispatchLeavesTheAppsPresentablesAsTheyWere() throws {
        let output = Recorder()
        let host = try host(output)
        try host.dispatch("books")
        let before = host.presentables.mapValues { ObjectIdentifier($0) }
        host.presenter.failOn = "books/:id"
        let error = #expect(throws: RouteError.self) { try host.dispatch("books/1") }
        #expect(error?.message == "cannot build books/:id")
        #expect(host.presentables.mapValues { ObjectIdentifier($0) } == before)
        #expect(host.model?.children.map(\.id) == ["books"])
        // The app's presenter was asked to take its part back.
        #expect(host.presenter.transactions == ["begin", "commit", "begin", "rollback"])
        // A Lua write the app refuses fails the dispatch with the app's message.
        host.presenter.failOn = nil
        var refusing = HostPresenter<Screen>()
        refusing.update = { _, _ in throw RouteError(.script, "the app refused") }
        host.bind(.name("book"), refusing)
        #expect(throws: RouteError.self) { try host.dispatch("books/2") }
        #expect(host.presentables.mapValues { ObjectIdentifier($0) } == before)
        host.unbind(.name("book"))
        try host.dispatch("books/3")
        #expect(host["books/:id"]?.title == "Book 3")
    }

    @Test func aLuaWriteTheAppRefusesIsAScriptErrorWithItsLocation() throws {
        let host = ScriptHost(presenter: ScreenPresenter())
        try host.load(
            source: "return stack { endpoint { 'a', presenter = { update = function(view) view.forbidden = 1 end } } }",
            name: "refuse.lua")
        let error = #expect(throws: RouteError.self) { try host.dispatch("a") }
        #expect(error?.message.hasPrefix("refuse.lua:1:") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("Screen has no attribute 'forbidden'") == true)
        #expect(host.root == nil)
    }

    @Test func reloadKeepsTheAppsPresentablesByIdAndUnwindsVanishedOnes() throws {
        let folder = ScriptFolder()
        let path = folder.write("app.lua", script)
        let host = try ScriptHost(contentsOf: path, presenter: ScreenPresenter())
        try host.dispatch("books/5")
        let kept = try #require(host["books"])
        let detail = try #require(host["books/:id"])
        // The detail's route moves: a new node with a new id; the old one vanishes.
        folder.write(
            "app.lua",
            script.split(separator: "./:id", omittingEmptySubsequences: false).joined(separator: "./book/:id"))
        host.presenter.log = []
        let summary = try host.reload()
        #expect(summary.removed.contains("books/:id"))
        #expect(host["books"] === kept)
        #expect(host["books/:id"] == nil)
        #expect(host.presenter.log.contains("app unwind books/:id"))
        #expect(detail.title == "Book 5")
        try host.dispatch("books/book/6")
        #expect(host["root"]?.children.map(\.id) == ["books", "books/book/:id"])
    }

    @Test func aSyncReflectsWhatTheUIDidInTheAppsPresenter() throws {
        let host = try host(Recorder())
        try host.dispatch("books/9")
        host.presenter.log = []
        try host.sync("books")
        #expect(host.presenter.log.contains("app reflect setStack root [books]"))
        #expect(host.presenter.log.contains("app unwind books/:id"))
        #expect(!host.presenter.log.contains { $0.hasPrefix("app setStack") }, "the UI already did it")
        #expect(host.root?.children.map(\.id) == ["books"])
    }
}

/// Lines collected from hooks (the tests run hooks synchronously on their own thread).
final class Recorder: @unchecked Sendable {
    private(set) var lines: [String] = []
    func append(_ line: String) { lines.append(line) }
}

@Suite struct OneErrorTypeTests {
    /// Everything a host throws is a LunaError with a kind, a message and its file:line.
    @Test func everyHostErrorIsALunaErrorWithItsLocation() throws {
        let folder = ScriptFolder()
        let broken = folder.write("broken.lua", "return stack {\n  endpoint { 'a', childs = {} } }")
        let load = #expect(throws: (any Error).self) { try RouteScriptHost(contentsOf: broken) }
        let loadError = try #require(load as? any LunaError)
        #expect(loadError.kindName == "load")
        #expect(loadError.location == SourceLocation(file: "broken.lua", line: 2))

        let path = folder.write(
            "hook.lua", "return stack { endpoint { 'a', presenter = { update = function(v)\n error('boom') end } } }")
        let host = try RouteScriptHost(contentsOf: path)
        let dispatch = #expect(throws: (any Error).self) { try host.dispatch("a") }
        let dispatchError = try #require(dispatch as? any LunaError)
        #expect(dispatchError.kindName == "script")
        #expect(dispatchError.location == SourceLocation(file: "hook.lua", line: 2))

        let noMatch = #expect(throws: (any Error).self) { try host.dispatch("zzz") }
        #expect((noMatch as? any LunaError)?.kindName == "noMatch")
        #expect((noMatch as? any LunaError)?.location == nil)

        let lua = #expect(throws: (any Error).self) { try host.evaluate("error('bad')") }
        #expect((lua as? any LunaError)?.kindName == "evaluation")
        #expect((lua as? any LunaError)?.location == SourceLocation(file: "repl", line: 1))

        let definition = #expect(throws: (any Error).self) { try RouteTree(root: .stack([])) }
        #expect((definition as? any LunaError)?.kindName == "definition")
    }

    @Test(arguments: [
        ("books.lua:12: boom", "books.lua", 12),
        ("mod/tabs/books.lua:3: x: y", "mod/tabs/books.lua", 3),
        ("[string \"a:b\"]:7: oops", "[string \"a:b\"]", 7),
    ])
    func locationsAreReadFromTheMessage(message: String, file: String, line: Int) {
        #expect(SourceLocation(leadingIn: message) == SourceLocation(file: file, line: line))
    }

    /// Every kind of script error carries its place as data, from where it was raised.
    @Test(arguments: [
        ("return stack { endpoint { 'a' \n", 2),  // Lua's syntax error
        ("return stack {\n  endpoint { 'a', childs = {} },\n}", 2),  // a DSL mistake, at its declaration
        ("return stack {\n  endpoint { 'a' },\n  stack { },\n}", 3),  // an invalid tree, at the node
        ("local x = nil\nreturn x.y", 2),  // a runtime error while loading
        ("return stack {\n  endpoint { 'a' },\n  endpoint { 'a' },\n}", 3),  // the lint: a duplicate route
    ])
    func loadErrorsCarryTheirLocation(source: String, line: Int) {
        let error = #expect(throws: RouteScriptError.self) { try RouteScriptHost().load(source: source, name: "m.lua") }
        #expect(error?.location == SourceLocation(file: "m.lua", line: line), "\(error?.message ?? "")")
    }

    @Test(arguments: ["no location", ":12: no file", "a:b: no line", "line\nbooks.lua:3: on the next line"])
    func messagesWithoutALocationHaveNone(message: String) {
        #expect(SourceLocation(leadingIn: message) == nil)
    }

    /// The headless host binds Swift presenters too: the kind default runs, then Lua.
    @Test func theHeadlessHostBindsByKindAndRunsLuaAfter() throws {
        let host = RouteScriptHost()
        var stamp = HostPresenter<HeadlessPresentable>()
        stamp.create = { view, context in view.attributes["made"] = .string("swift \(context.kind.rawValue)") }
        stamp.update = { view, _ in view.title = "swift" }
        host.bind(.kind(.endpoint), stamp)
        try host.load(
            source:
                "return stack { endpoint { 'a', presenter = { update = function(v) v.title = v.title .. '+lua' end } } }"
        )
        _ = try host.dispatch("a")
        #expect(host.tree?.children.first?.title == "swift+lua")
        #expect(host.tree?.children.first?.attributes["made"] == .string("swift endpoint"))
    }
}
