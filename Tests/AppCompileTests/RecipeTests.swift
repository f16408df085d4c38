import Foundation
import LunaLink
import RouteCore
import RouteScript
import Testing

/// The app's screens in these tests.
final class BookScreen: RouteScreen {}

/// A shop-like tree: two tabs, a detail pushed on the first, a compose sheet over the list.
private func tabsTree() throws -> RouteTree {
    try RouteTree(
        root: .junction([
            .stack([
                .endpoint(
                    "books", children: [.endpoint("books/:id")],
                    modals: [.stack([.endpoint("compose", children: [.endpoint("compose/preview")])])])
            ]),
            .stack([.endpoint("settings")]),
        ]))
}

@MainActor
@Suite struct UIKitRecipeTests {
    let router: Router<UIKitPresenter>
    let events: SystemNavigationEvents
    var errors: [String] = []

    init() throws {
        router = Router(tree: try tabsTree(), presenter: UIKitPresenter { _ in BookScreen() })
        events = SystemNavigationEvents(router: router)
        events.report = { Issue.record("unexpected navigation error: \($0)") }
    }

    private var tabs: UITabBarController? { router.rootPresentable as? UITabBarController }
    private var books: UINavigationController? { tabs?.viewControllers?.first as? UINavigationController }

    @Test func thePlanBuildsTheControllers() throws {
        try router.dispatch("books/42?title=Dune")
        #expect(tabs?.selectedIndex == 0)
        #expect(books?.viewControllers.map(\.title) == ["books", "books/:id"])
        let top = try #require(books?.topViewController as? RouteScreen)
        #expect(top.activation?.params == ["id": "42"])
        #expect(top.activation?.query == ["title": "Dune"])
        try router.dispatch("books/7")
        #expect(top.activation?.params == ["id": "7"], "an update, not a new controller")
        #expect(books?.topViewController === top)
    }

    @Test func anInteractivePopSyncsTheRouter() throws {
        try router.dispatch("books/42")
        let navigation = try #require(books)
        navigation.userPopped()
        events.navigationController(navigation, didShow: try #require(navigation.topViewController), animated: true)
        #expect(router.state.request?.path == "books")
        #expect(navigation.viewControllers.count == 1)
        // The router's own push shows a screen whose request is already the state's: nothing to do.
        try router.dispatch("books/9")
        events.navigationController(navigation, didShow: try #require(navigation.topViewController), animated: true)
        #expect(router.state.request?.path == "books/9")
    }

    @Test func aSheetSwipedDownSyncsTheRouter() throws {
        try router.dispatch("compose/preview")
        let list = try #require(books?.viewControllers.first)
        let sheet = try #require(list.presentedViewController as? UINavigationController)
        #expect(sheet.viewControllers.map(\.title) == ["compose", "compose/preview"])
        sheet.userSwipedDown()
        events.presentationControllerDidDismiss(UIPresentationController(presentedViewController: sheet))
        #expect(router.state.request?.path == "books")
        #expect(list.presentedViewController == nil)
        // The list is still presented by nothing, and was not dismissed itself.
        #expect(books?.viewControllers.first === list)
    }

    @Test func aTabTapSyncsOrOpensTheTabsFirstScreen() throws {
        try router.dispatch("books/42")
        let tabs = try #require(tabs)
        let settings = try #require(tabs.viewControllers?.last)
        tabs.selectedIndex = 1
        events.tabBarController(tabs, didSelect: settings)
        #expect(router.state.request?.path == "settings")
        tabs.selectedIndex = 0
        events.tabBarController(tabs, didSelect: try #require(tabs.viewControllers?.first))
        #expect(router.state.request?.path == "books/42", "the tab's stack is where it was")
    }

    @Test func aRefusedRequestLeavesTheControllersAsTheyWere() throws {
        try router.dispatch("books/42")
        #expect(throws: RouteError.self) { try router.dispatch("nowhere") }
        #expect(books?.viewControllers.count == 2)
        #expect(router.state.request?.path == "books/42")
    }
}

@MainActor
@Suite struct SwiftUIRecipeTests {
    @Test func thePlanDrivesTheModelAndTheUserSyncsIt() throws {
        let model = NavigationModel()
        let router = Router(tree: try tabsTree(), presenter: SwiftUIPresenter(model: model))
        try router.dispatch("books/42")
        let books = try #require(model.tabs.first)
        #expect(model.root(of: books)?.id == "books")
        #expect(model.path(of: books).map(\.id) == ["books/:id"])

        // NavigationStack's back button: the path binding is set one shorter.
        try model.userSetPath([], of: books, router: router)
        #expect(router.state.request?.path == "books")
        #expect(model.path(of: books).isEmpty)

        try router.dispatch("compose")
        #expect(model.sheet?.id == "stack:compose")
        try model.userDismissedSheet(router: router)
        #expect(model.sheet == nil)
        #expect(router.state.request?.path == "books")

        try model.userSelectedTab(1, router: router)
        #expect(model.selectedTab == 1)
        #expect(router.state.request?.path == "settings")
    }
}

/// A script host driving the same `@MainActor` presenter, with a Swift presenter bound to a
/// route whose closure touches main-actor state.
@MainActor
@Suite struct ScriptHostRecipeTests {
    @Test func aScriptDrivesTheUIKitPresenter() throws {
        let host = ScriptHost(presenter: UIKitPresenter { _ in BookScreen() })
        var book = HostPresenter<UIViewController>()
        book.update = { screen, context in screen.title = context.query["title"] ?? "Book" }
        host.bind(.id("books/:id"), book)
        try host.load(
            source: """
                return junction {
                  stack { endpoint { "books", children = { endpoint { "./:id", title = "Book" } } } },
                  stack { endpoint { "settings" } },
                }
                """)
        try host.dispatch("books/42?title=Dune")
        let tabs = try #require(host.root as? UITabBarController)
        let books = try #require(tabs.viewControllers?.first as? UINavigationController)
        #expect(books.viewControllers.map(\.title) == ["books", "Dune"])
    }
}

/// `RouteTree` is Sendable: an app loads an exported tree off the main actor and hands it to
/// its router.
@Suite struct SendableTreeTests {
    @Test func anExportedTreeLoadsInADetachedTask() async throws {
        let host = RouteScriptHost()
        try host.load(
            source:
                #"return stack { endpoint { "books", children = { endpoint { "./:id", where = { id = "[0-9]+" } } } } }"#
        )
        let json = try host.exportJSON()
        let tree = try await Task.detached { try RouteTree(json: json) }.value
        let presenter = await MainActor.run { UIKitPresenter { _ in BookScreen() } }
        let path = try await MainActor.run {
            let router = Router(tree: tree, presenter: presenter)
            return try router.dispatch("books/42").resolution.request.path
        }
        #expect(path == "books/42")
    }

    @Test func aScriptsGuardCalledFromAnotherThreadWaitsForTheHost() async throws {
        // The tree of a script is Sendable too: its Lua guard, called on another thread, takes
        // the script's gate and runs after (never beside) the host's own work.
        let host = RouteScriptHost()
        try host.load(
            source: """
                calls = 0
                return stack {
                  endpoint { "books", children = {
                    endpoint { "./:id", fallback = "books",
                      enabled = function(ctx) calls = calls + 1; return ctx.params.id ~= "0" end },
                  } },
                }
                """)
        let tree = try #require(host.routeTree)
        async let others: [String] = Task.detached {
            var paths: [String] = []
            for id in 0..<200 { paths.append(try tree.resolve("books/\(id % 3)").request.path) }
            return paths
        }.value
        for id in 0..<200 { try host.dispatch("books/\(id % 3 + 1)") }
        let paths = try await others
        #expect(paths.filter { $0 == "books" }.count == 67, "the guard refused id 0 every time")
        #expect(try host.evaluate("return calls") == ["400"])
    }
}

/// The article shows the recipes' code as it is compiled here.
@Suite struct RecipeTextTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../..").standardized

    static func recipe(_ name: String, in file: String) throws -> String {
        let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
        let lines = text.components(separatedBy: "\n")
        guard let start = lines.firstIndex(of: "// recipe: \(name)"),
            let end = lines[start...].firstIndex(of: "// end recipe")
        else { return "" }
        return lines[(start + 1)..<end].joined(separator: "\n")
    }

    static let articles = [
        ("uikit", "UIKitRecipe.swift", "Sources/RouteCore/RouteCore.docc/UIKitAndSwiftUI.md"),
        ("swiftui", "SwiftUIRecipe.swift", "Sources/RouteCore/RouteCore.docc/UIKitAndSwiftUI.md"),
        ("link-uikit", "LinkRecipe.swift", "Sources/LunaLink/LunaLink.docc/DriveYourApp.md"),
        ("link-swiftui", "LinkRecipe.swift", "Sources/LunaLink/LunaLink.docc/DriveYourApp.md"),
        ("split-uikit", "SplitRecipe.swift", "docs/recipes.md"),
        ("restore", "RestoreRecipe.swift", "docs/recipes.md"),
    ]

    @Test(arguments: 0..<articles.count)
    func theArticleShowsTheCompiledRecipe(index: Int) throws {
        let (name, file, path) = Self.articles[index]
        let compiled = try Self.recipe(name, in: "Tests/AppCompileTests/" + file)
        #expect(compiled.count > 500)
        let article = try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
        #expect(article.contains(compiled), "the \(name) recipe in the article differs from \(file)")
    }
}

/// The live link drives the same `@MainActor` UIKit presenter (an isolated conformance): it
/// compiles in Swift 6 mode and runs on the main actor. (The session side is tested in
/// LunaEndToEndTests; here no session listens, and the link says so.)
@MainActor
@Suite struct LinkRecipeTests {
    @Test func theLinkTakesTheUIKitPresenter() async throws {
        var options = LunaLink<UIKitPresenter>.Options()
        options.reconnect = false
        let link = LunaLink(
            url: "http://127.0.0.1:9/?token=abc", idiom: .phone, presenter: UIKitPresenter { _ in BookScreen() },
            options: options)
        var said: String?
        link.onEvent = { if case .disconnected(let why) = $0 { said = why } }
        link.start()
        let clock = ContinuousClock()
        // Generous: under the whole suite, other `@MainActor` tests hold the main actor for seconds.
        let deadline = clock.now + .seconds(120)
        while said == nil, clock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(said?.contains("127.0.0.1:9") == true, "\(said ?? "nothing")")
        #expect(link.presentables.isEmpty && !link.isConnected)
        link.stop()
    }
}
