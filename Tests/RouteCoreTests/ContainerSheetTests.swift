import Testing

@testable import RouteCore

/// Sheets over any screen (docs/dsl.md, "Sheets over any screen"): a modal declared on a
/// container is presented over whatever its top screen is, without unwinding it; closing it
/// returns there with the tab stacks as they were; a cold link shows it over the container's
/// entry.
@Suite struct ContainerSheetTests {
    /// Two tabs (accounts → accounts/:account, payees); the tab bar presents `transfer`, a
    /// stack of `transfer` → `transfer/amount`; the root presents `help`.
    static func tree(withInitial: Bool = false) throws -> RouteTree {
        var tabs = NodeSpec.junction(
            [
                .stack([.endpoint("accounts", children: [.endpoint("./:account")])], id: "accounts-tab"),
                .stack([.endpoint("payees")], id: "payees-tab"),
            ], id: "tabs")
        tabs.modals = [.stack([.endpoint("transfer", children: [.endpoint("./amount")])], id: "transfer-flow")]
        var root = NodeSpec.switcher([.endpoint("signin"), tabs])
        root.modals = [.endpoint("help")]
        if withInitial { root.initial = "payees" }
        return try RouteTree(root: root)
    }

    static func router(_ tree: RouteTree) -> Router<HeadlessPresenter> {
        Router(tree: tree, presenter: HeadlessPresenter())
    }

    /// The screen presenting `modal`, and the tab stack items.
    static func presenter(of modal: String, in router: Router<HeadlessPresenter>) -> String? {
        var found: String?
        router.state.presented?.forEach { presented in
            if case .screen(let node, _, let shown?) = presented, shown.node == NodeID(modal) { found = node.rawValue }
        }
        return found
    }

    static func items(_ router: Router<HeadlessPresenter>, _ stack: String) -> [String] {
        guard case .stack(_, let items)? = router.state.presented?.first(NodeID(stack)) else { return [] }
        return items.map(\.node.rawValue)
    }

    @Test func aSheetOfTheTabBarIsPresentedOverTheScreenShownWithoutUnwindingIt() throws {
        let router = Self.router(try Self.tree())
        try router.dispatch("payees")
        try router.dispatch("accounts/1234")
        let opened = try router.dispatch("transfer")
        #expect(Self.presenter(of: "transfer-flow", in: router) == "accounts/:account")
        #expect(Self.items(router, "accounts-tab") == ["accounts", "accounts/:account"])
        #expect(!opened.plan.operations.contains { if case .unwind = $0 { true } else { false } })
        #expect(opened.plan.operations.contains(.presentModal(id: "accounts/:account", modal: "transfer-flow")))
        // Inside the sheet's own stack.
        try router.dispatch("transfer/amount")
        #expect(Self.items(router, "transfer-flow") == ["transfer", "transfer/amount"])
        #expect(Self.presenter(of: "transfer-flow", in: router) == "accounts/:account")
        // Back pops the sheet's stack; Back again dismisses it: the account shows as it was.
        try router.back()
        #expect(Self.items(router, "transfer-flow") == ["transfer"])
        let dismissed = try router.back()
        #expect(dismissed.transition.reflected.contains(.dismissModal(id: "accounts/:account", modal: "transfer-flow")))
        #expect(router.state.request?.original == "accounts/1234")
        #expect(Self.presenter(of: "transfer-flow", in: router) == nil)
        #expect(Self.items(router, "payees-tab") == ["payees"])
    }

    @Test func closeReturnsToAPushedScreenAsItWas() throws {
        // The accounts stack takes pushes of accounts (its own screens).
        let router = Self.router(try Self.tree())
        try router.dispatch("accounts/1234")
        try router.push("accounts/5678")
        try router.dispatch("transfer/amount")
        #expect(Self.presenter(of: "transfer-flow", in: router) == "accounts/:account#2")
        #expect(Self.items(router, "accounts-tab") == ["accounts", "accounts/:account", "accounts/:account#2"])
        let closed = try router.close()
        #expect(closed.plan.operations.contains(.dismissModal(id: "accounts/:account#2", modal: "transfer-flow")))
        #expect(closed.plan.operations.contains(.unwind(id: "transfer/amount")))
        #expect(router.state.request?.original == "accounts/5678")
        #expect(Self.items(router, "accounts-tab") == ["accounts", "accounts/:account", "accounts/:account#2"])
        #expect(throws: RouteError.self) { try router.close() }
    }

    @Test func aColdLinkShowsTheSheetOverTheContainersEntry() throws {
        let router = Self.router(try Self.tree())
        try router.dispatch("transfer/amount")
        // The tab bar's first screen that needs no parameter: accounts.
        #expect(Self.presenter(of: "transfer-flow", in: router) == "accounts")
        #expect(Self.items(router, "transfer-flow") == ["transfer", "transfer/amount"])
        try router.back()
        try router.back()
        #expect(router.state.request?.original == "accounts")
        // The root's sheet, on a tree whose root starts on payees: over payees.
        let other = Self.router(try Self.tree(withInitial: true))
        try other.dispatch("help")
        #expect(Self.presenter(of: "help", in: other) == "payees")
    }

    @Test func theRootsSheetGoesOverAnyScreenEvenAnotherSheet() throws {
        let router = Self.router(try Self.tree())
        try router.dispatch("signin")
        try router.dispatch("help")
        #expect(Self.presenter(of: "help", in: router) == "signin")
        try router.close()
        try router.dispatch("transfer")
        try router.dispatch("help")
        #expect(Self.presenter(of: "help", in: router) == "transfer")
        try router.close()
        #expect(router.state.request?.original == "transfer")
    }

    @Test func aFlagChangeAndARestorationKeepWhatIsUnderTheSheet() throws {
        let tree = try Self.tree()
        let router = Self.router(tree)
        try router.dispatch("payees")
        try router.dispatch("accounts/1234")
        try router.push("accounts/5678")
        try router.dispatch("transfer/amount")
        let before = router.state
        try router.setFlag("theme", "dark")
        #expect(router.state == before)
        let restored = Self.router(tree)
        #expect(try restored.restore(restoring: router.state.restorationString) == nil)
        #expect(restored.state == router.state)
        #expect(restored.rootPresentable?.rendered() == router.rootPresentable?.rendered())
    }

    @Test func aContainerSheetOverScreensThatAllNeedParametersIsALoadError() {
        var stack = NodeSpec.stack([.endpoint("items/:id")])
        stack.modals = [.endpoint("filter")]
        let error = #expect(throws: RouteDefinitionError.self) { try RouteTree(root: stack) }
        #expect(error?.message.contains("modal 'filter' of 'root'") == true, "\(error?.message ?? "")")
    }

    @Test func anExportedTreeCarriesContainerSheets() throws {
        let tree = try Self.tree()
        let loaded = try RouteTree(json: tree.exportJSON())
        let router = Self.router(loaded)
        try router.dispatch("accounts/1234")
        try router.dispatch("transfer")
        #expect(Self.presenter(of: "transfer-flow", in: router) == "accounts/:account")
    }
}
