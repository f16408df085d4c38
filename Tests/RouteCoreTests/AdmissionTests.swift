import Testing

@testable import RouteCore

/// Enter guards wherever the state moves: after a flag change, a travel or a restoration,
/// the screens a state kept that a guard refuses now are dropped (other tabs' stacks, screens
/// under the top, sheets), so Back, a tab tap or Undo never reach them.
@Suite struct AdmissionTests {
    final class SignedIn: @unchecked Sendable {
        let value = Locked(true)
    }

    /// Home, and an Account tab whose screens (an order under the account, a receipt sheet
    /// over the order) need a signed-in user; signed out, they go to Sign in, in that tab.
    static func tree(_ signedIn: SignedIn) throws -> RouteTree {
        var account = EndpointSpec(pattern: "account")
        account.enabled = { _ in signedIn.value.withLock { $0 } }
        account.fallback = "signin"
        return try RouteTree(
            root: .junction([
                .stack([.endpoint("home")]),
                .stack([
                    NodeSpec(
                        kind: .endpoint, children: [.endpoint("./orders/:id", modals: [.endpoint("./receipt")])],
                        endpoint: account),
                    .endpoint("signin"),
                ]),
            ]))
    }

    @Test func aFlagChangeDropsTheRefusedScreensOfAnotherTab() throws {
        let signedIn = SignedIn()
        let router = Router(tree: try Self.tree(signedIn), presenter: HeadlessPresenter())
        try router.dispatch("account/orders/7/receipt")
        try router.dispatch("home")
        #expect(router.store["account/orders/:id"] != nil)
        signedIn.value.withLock { $0 = false }
        let result = try #require(try router.recheckGuards())
        let unwound = result.plan.operations.filter { $0.name == "unwind" }.map(\.text)
        #expect(Set(unwound) == ["unwind account", "unwind account/orders/:id"], "\(unwound)")
        #expect(result.dropped.map(\.rawValue) == ["account", "account/orders/:id"])
        #expect(router.store["account/orders/:id"] == nil && router.store["account"] == nil)
        guard case .junction(_, _, let options)? = router.state.presented, case .stack(_, let items) = options[1] else {
            Issue.record("not two tabs")
            return
        }
        #expect(items.isEmpty)
        #expect(router.state.request?.path == "home")
        // Nothing more to drop.
        let again = try #require(try router.recheckGuards())
        #expect(again.dropped.isEmpty && again.plan.isEmpty)
    }

    @Test func aPassingStateIsKeptWhole() throws {
        let router = Router(tree: try Self.tree(SignedIn()), presenter: HeadlessPresenter())
        try router.dispatch("account/orders/7")
        try router.dispatch("home")
        let before = router.state.presented
        let result = try #require(try router.recheckGuards())
        #expect(result.dropped.isEmpty && result.plan.isEmpty)
        #expect(router.state.presented == before)
    }

    /// A string saved while signed in, restored signed out: the order is not restored into
    /// the Account tab (it was before: restoration ran the guard of the shown screen only).
    @Test func aRestorationDropsWhatAGuardRefusesNow() throws {
        let signedIn = SignedIn()
        let first = Router(tree: try Self.tree(signedIn), presenter: HeadlessPresenter())
        try first.dispatch("account/orders/7")
        try first.dispatch("home")
        let saved = first.state.restorationString
        signedIn.value.withLock { $0 = false }
        let next = Router(tree: try Self.tree(signedIn), presenter: HeadlessPresenter())
        _ = try next.restore(restoring: saved)
        #expect(next.state.request?.path == "home")
        #expect(next.store["account/orders/:id"] == nil)
    }

    /// An app with Swift guards signs out: `recheckGuards()` sends the order shown to Sign in
    /// and drops the account kept under it, in one plan.
    @Test func anAppRechecksItsGuardsAfterItsOwnSignOut() throws {
        let signedIn = SignedIn()
        let router = Router(tree: try Self.tree(signedIn), presenter: HeadlessPresenter())
        try router.dispatch("account/orders/7")
        signedIn.value.withLock { $0 = false }
        let transition = try #require(try router.recheckGuards())
        #expect(router.state.route.map { router.tree[$0].definition.displayText } == "signin")
        #expect(router.store["account/orders/:id"] == nil && router.store["account"] == nil)
        #expect(transition.plan.operations.contains(.unwind(id: "account/orders/:id")))
        // Signed in again: the request kept (what was asked) is shown, as a flag change does.
        signedIn.value.withLock { $0 = true }
        try router.recheckGuards()
        #expect(router.state.route.map { router.tree[$0].definition.displayText } == "account/orders/:id")
        // Nothing changed since: nothing to do.
        #expect(try router.recheckGuards()?.plan.operations.isEmpty == true)
    }

    /// An app without Lua keeps its flags in its `Router`: the guards read them from their
    /// context (as an exported script's hooks do), and `setFlag` runs them again.
    @Test func aRouterOfAnExportedTreeHasFlagsItsGuardsRead() throws {
        var account = EndpointSpec(pattern: "account")
        account.enabled = { context in context.flags["signedIn"] == "yes" }
        account.fallback = "signin"
        let tree = try RouteTree(
            root: .junction([
                .stack([.endpoint("home")]),
                .stack([
                    NodeSpec(kind: .endpoint, children: [.endpoint("./orders/:id")], endpoint: account),
                    .endpoint("signin"),
                ]),
            ]))
        let router = Router(tree: tree, presenter: HeadlessPresenter())
        try router.dispatch("account/orders/7")
        #expect(router.state.route.map { tree[$0].definition.displayText } == "signin", "signed out: the fallback")
        try router.setFlag("signedIn", "yes")
        #expect(router.flags == ["signedIn": "yes"])
        #expect(router.state.route.map { tree[$0].definition.displayText } == "account/orders/:id", "continues")
        try router.dispatch("home")
        let transition = try #require(try router.setFlag("signedIn", nil))
        #expect(transition.plan.operations.contains(.unwind(id: "account/orders/:id")))
        #expect(router.state.route.map { tree[$0].definition.displayText } == "home")
        // A saved state restores through the flags of the router that restores it.
        let saved = router.state.restorationString
        let next = Router(tree: tree, presenter: HeadlessPresenter())
        try next.setFlag("signedIn", "yes")
        _ = try next.restore(restoring: saved)
        #expect(next.state.route.map { tree[$0].definition.displayText } == "home")
    }
}
