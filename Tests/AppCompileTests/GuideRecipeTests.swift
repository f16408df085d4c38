import Foundation
import RouteCore
import RouteScript
import Testing

/// The recipes of docs/recipes.md that run in an app: a split view on a pad, and restoration
/// across launches — with the guide's own scripts (examples/recipes/).
@MainActor
@Suite struct GuideRecipeTests {
    static func tree(_ script: String, device: Device = .phone) throws -> (RouteScriptHost, RouteTree) {
        var options = RouteScriptOptions()
        options.device = device
        let host = try RouteScriptHost(
            contentsOf: RecipeTextTests.root.appendingPathComponent("examples/recipes/" + script).path,
            options: options)
        return (host, try #require(host.routeTree))
    }

    @Test func aPadShowsTheMailboxBesideTheMessage() throws {
        let (_, tree) = try Self.tree("split.lua", device: .pad)
        let presenter = SplitPresenter(
            base: UIKitPresenter { _ in BookScreen() }, splitStacks: [NodeID("mailbox")], isPad: true)
        let router = Router(tree: tree, presenter: presenter)
        try router.dispatch("mail/2")
        let split = try #require(router.rootPresentable as? UISplitViewController)
        #expect(split.viewController(for: .primary)?.title == "Mailbox")
        let detail = try #require(split.viewController(for: .secondary) as? UINavigationController)
        #expect(detail.viewControllers.map(\.title) == ["Message"])
        #expect((detail.topViewController as? RouteScreen)?.activation?.params == ["message": "2"])
        // Back to the mailbox: the detail column empties, the sidebar stays.
        try router.dispatch("mail")
        #expect(detail.viewControllers.isEmpty)
        #expect(split.viewController(for: .primary)?.title == "Mailbox")
    }

    @Test func aPhoneShowsOneStack() throws {
        let (_, tree) = try Self.tree("split.lua")
        let presenter = SplitPresenter(
            base: UIKitPresenter { _ in BookScreen() }, splitStacks: [NodeID("mailbox")], isPad: false)
        let router = Router(tree: tree, presenter: presenter)
        try router.dispatch("mail/2")
        let stack = try #require(router.rootPresentable as? UINavigationController)
        #expect(stack.viewControllers.map(\.title) == ["Mailbox", "Message"])
    }

    /// Saved at the background, restored at the next launch on a fresh router: the sheet with
    /// its own stack comes back, screens and all.
    @Test func theNextLaunchShowsWhatTheLastOneShowed() throws {
        let suite = "luna-recipe-\(UUID().uuidString)"
        let defaults = try #require(UserDefaults(suiteName: suite))
        defer { defaults.removePersistentDomain(forName: suite) }
        let (_, tree) = try Self.tree("sheet-stack.lua")

        let first = Router(tree: tree, presenter: UIKitPresenter { _ in BookScreen() })
        let before = NavigationRestoration(router: first, defaults: defaults)
        #expect(before.restore(orStartAt: "inbox") == nil)
        #expect(first.state.request?.path == "inbox")
        try first.dispatch("inbox/compose/to")
        before.save()

        let next = Router(tree: tree, presenter: UIKitPresenter { _ in BookScreen() })
        let warning = NavigationRestoration(router: next, defaults: defaults).restore(orStartAt: "inbox")
        #expect(warning == nil)
        #expect(next.state.presented == first.state.presented)
        let inbox = try #require((next.rootPresentable as? UINavigationController)?.viewControllers.first)
        let sheet = try #require(inbox.presentedViewController as? UINavigationController)
        #expect(sheet.viewControllers.map(\.title) == ["Compose", "Recipients"])
    }

    /// A saved string this version cannot read is dropped, and the app starts at `initial`.
    @Test func anUnreadableSaveStartsAfresh() throws {
        let suite = "luna-recipe-\(UUID().uuidString)"
        let defaults = try #require(UserDefaults(suiteName: suite))
        defer { defaults.removePersistentDomain(forName: suite) }
        defaults.set(#"{"v":99}"#, forKey: "navigation")
        let (_, tree) = try Self.tree("sheet-stack.lua")
        let router = Router(tree: tree, presenter: UIKitPresenter { _ in BookScreen() })
        #expect(NavigationRestoration(router: router, defaults: defaults).restore(orStartAt: "inbox") == nil)
        #expect(router.state.request?.path == "inbox")
        #expect(defaults.string(forKey: "navigation") == nil)
    }
}
