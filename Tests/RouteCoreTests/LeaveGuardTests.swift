import Testing

@testable import RouteCore

/// Leave guards (docs/dsl.md, "Leave guards"): every transition of the table × a guarded node,
/// asked exactly where the table says (0 bypasses), and a question pending until confirmed or
/// cancelled.
@Suite struct LeaveGuardTests {
    /// The guard's answer and the calls it got (the request each change went to).
    final class Guarded: @unchecked Sendable {
        let answer = Locked(LeaveAnswer.ask("Discard this transfer?"))
        let calls = Locked([String?]())
        let signedIn = Locked(true)
        var count: Int { calls.withLock { $0.count } }
    }

    /// Sign in, and a tab bar (behind sign-in) with Home and Cart; the cart presents a sheet with
    /// its own stack — transfer (guarded), then review — and `old` redirects to the cart.
    static func tree(_ guarded: Guarded) throws -> RouteTree {
        var transfer = EndpointSpec(pattern: "transfer")
        transfer.leave = { context, to in
            guarded.calls.withLock { $0.append(to) }
            #expect(context.endpointID == "transfer" && context.route == "transfer")
            return guarded.answer.withLock { $0 }
        }
        var old = EndpointSpec(pattern: "old")
        old.redirect = { _ in "cart" }
        var tabs = NodeSpec.junction([
            .stack([.endpoint("home", children: [.endpoint("./:id")])]),
            .stack([
                .endpoint(
                    "cart",
                    modals: [
                        .stack([NodeSpec(kind: .endpoint, children: [.endpoint("./review")], endpoint: transfer)])
                    ])
            ]),
        ])
        tabs.guardSpec = GuardSpec(enabled: { _ in guarded.signedIn.withLock { $0 } }, fallback: "signin")
        var root = NodeSpec.switcher([.endpoint("signin"), tabs, NodeSpec(kind: .endpoint, endpoint: old)])
        root.links = try LinkDomains(schemes: ["myapp"])
        return try RouteTree(root: root)
    }

    static func router(
        _ guarded: Guarded, at request: String = "transfer"
    ) throws
        -> Router<HeadlessPresenter>
    {
        let router = Router(tree: try Self.tree(guarded), presenter: HeadlessPresenter())
        guarded.answer.withLock { $0 = .go }
        try router.dispatch(request)
        guarded.calls.withLock { $0 = [] }
        guarded.answer.withLock { $0 = .ask("Discard this transfer?") }
        return router
    }

    static func showsTransfer(_ router: Router<HeadlessPresenter>) -> Bool {
        router.state.presented?.first(NodeID("transfer")) != nil
    }

    /// The transitions that remove the guarded node ask it, once, with where the change goes;
    /// the question holds the change until it is confirmed.
    @Test(arguments: [
        ("dispatch", "signin"), ("link", "myapp://cart"), ("row", "home/7"), ("back", "transfer"),
        ("sheet close", "transfer"), ("sync", "cart"), ("redirect", "old"),
    ])
    func theseTransitionsAsk(transition: String, target: String) throws {
        let guarded = Guarded()
        let router = try Self.router(guarded)
        let before = router.state
        func change() throws -> Router<HeadlessPresenter>.Result {
            switch transition {
            case "back", "sheet close": try router.back()
            case "sync": try router.sync(target)
            default: try router.dispatch(target)
            }
        }
        let asked = try change()
        #expect(guarded.count == 1, "\(transition): asked \(guarded.count) times")
        #expect(asked.confirmation?.question == "Discard this transfer?")
        #expect(asked.confirmation?.node == NodeID("transfer"))
        #expect(asked.plan.isEmpty && router.state == before, "\(transition): nothing changes while it asks")
        // While it is pending, every navigation fails and changes nothing.
        for other in [{ try router.dispatch("home") }, { try router.back() }, { try router.sync("home") }] {
            let error = #expect(throws: RouteError.self) { try other() }
            #expect(error?.kind == .pendingConfirmation)
        }
        #expect(router.state == before)
        let done = try router.confirm()
        #expect(!Self.showsTransfer(router), "\(transition): confirmed, the transfer is gone")
        #expect(done.confirmation == nil && router.pendingConfirmation == nil)
        #expect(guarded.count == 1, "confirming does not ask the same guard again")
    }

    /// The transitions the table says are not asked: a tab switch (the stack is kept), a flag
    /// change whose enter guard refuses the node, a restoration, undo and travel.
    @Test func theseTransitionsDoNotAsk() throws {
        let guarded = Guarded()
        var router = try Self.router(guarded, at: "cart")
        try router.dispatch("transfer")
        // A tab tap keeps the cart's stack; the sheet over it is dismissed without asking.
        try router.dispatch("home", options: .init(keepStack: true))
        #expect(!Self.showsTransfer(router) && guarded.count == 0)
        // The sheet again, then a sign-out: the enter guard removes it without asking.
        try router.dispatch("transfer")
        #expect(Self.showsTransfer(router) && guarded.count == 0)
        guarded.signedIn.withLock { $0 = false }
        _ = try router.recheckGuards()
        #expect(!Self.showsTransfer(router) && guarded.count == 0)
        // Restoration, undo and travel (`restore`) are not asked either.
        guarded.signedIn.withLock { $0 = true }
        router = try Self.router(guarded)
        let shown = router.state
        try router.restore(RouterState.initial)
        #expect(!Self.showsTransfer(router) && guarded.count == 0)
        try router.restore(shown)
        #expect(Self.showsTransfer(router))
        let restored = try RouterState(restoring: shown.restorationString)
        try router.restore(.initial)
        try router.restore(restored)
        #expect(guarded.count == 0)
    }

    @Test func stayRefusesAndGoGoes() throws {
        let guarded = Guarded()
        let router = try Self.router(guarded)
        let before = router.state
        guarded.answer.withLock { $0 = .stay }
        let error = #expect(throws: RouteError.self) { try router.dispatch("home") }
        #expect(error?.kind == .leaveRefused)
        #expect(error?.message == "'transfer' stays: its leave guard refused the change to 'home'")
        #expect(router.state == before && router.pendingConfirmation == nil)
        guarded.answer.withLock { $0 = .go }
        #expect(try router.dispatch("home").confirmation == nil)
        #expect(!Self.showsTransfer(router))
    }

    @Test func cancelKeepsEverythingAndAFlagChangeThatRemovesTheNodeDropsTheQuestion() throws {
        let guarded = Guarded()
        let router = try Self.router(guarded)
        let before = router.state
        _ = try router.dispatch("signin")
        #expect(router.cancel())
        #expect(router.state == before && router.pendingConfirmation == nil && !router.cancel())
        #expect(throws: RouteError.self) { try router.confirm() }
        // Asked again; a flag change that keeps the node keeps the question…
        _ = try router.dispatch("signin")
        try router.setFlag("theme", "dark")
        #expect(router.pendingConfirmation != nil)
        // …one whose enter guard removes it drops the question.
        guarded.signedIn.withLock { $0 = false }
        try router.setFlag("signedIn", "no")
        #expect(router.pendingConfirmation == nil && !Self.showsTransfer(router))
        #expect(router.state.request?.path == "signin")
    }

    /// A linked app asks before it lets the user swipe: what the guard would say now.
    @Test func aNodesAnswerCanBeAskedAhead() throws {
        let guarded = Guarded()
        let router = try Self.router(guarded)
        #expect(try router.leaveAnswer(for: NodeID("transfer"), to: "cart") == .ask("Discard this transfer?"))
        #expect(try router.leaveAnswer(for: NodeID("cart"), to: nil) == nil)
        #expect(router.pendingConfirmation == nil, "asking ahead leaves nothing pending")
    }
}
