import Testing

@testable import RouteCore

/// `sync` and `back` record what the UI did: the plan drives no structural change, yet the
/// presentables end up as a dispatch of the same request would leave them.
@Suite struct SyncTests {
    static let journeys: [(from: [String], to: String)] = [
        (["today/story/news/7"], "today"),
        (["today/story/news/7"], "books"),
        (["books/42?title=Dune", "today"], "books"),
        (["books/42"], "books"),
        (["orders/5"], "orders"),
        (["orders/5"], "profile"),
        (["orders/5"], "delivery"),
        (["today"], "login"),
        (["login"], "books/7"),
    ]

    @Test(arguments: 0..<journeys.count)
    func syncLeavesTheTreeADispatchWouldLeave(journey: Int) throws {
        let (path, target) = Self.journeys[journey]
        let synced = Router(tree: try MonarchExample.tree(), presenter: HeadlessPresenter())
        let dispatched = Router(tree: try MonarchExample.tree(), presenter: HeadlessPresenter())
        for request in path {
            _ = try synced.dispatch(request)
            _ = try dispatched.dispatch(request)
        }
        let sync = try synced.sync(target)
        let dispatch = try dispatched.dispatch(target)
        #expect(synced.rootPresentable?.rendered() == dispatched.rootPresentable?.rendered())
        #expect(synced.state == dispatched.state)
        // No structural operation is in the sync's plan; they are what the UI already did.
        let structural = dispatch.plan.operations.filter { !["create", "update", "unwind"].contains($0.name) }
        #expect(sync.plan.operations.allSatisfy { ["create", "update", "unwind"].contains($0.name) })
        #expect(sync.transition.reflected == structural)
    }

    @Test func backDismissesTheTopModalWhenItsStackHasNothingToPop() throws {
        let router = Router(tree: try MonarchExample.tree(), presenter: HeadlessPresenter())
        _ = try router.dispatch("today/story/news/7")
        let result = try router.back()
        #expect(router.state.request?.path == "today")
        #expect(result.plan.operations.map(\.text) == ["unwind today/story/:type/:id"])
        let fresh = Router(tree: try MonarchExample.tree(), presenter: HeadlessPresenter())
        _ = try fresh.dispatch("today/story/news/7")
        _ = try fresh.dispatch("today")
        #expect(router.rootPresentable?.rendered() == fresh.rootPresentable?.rendered())
        // Nothing left: a clear kind, not noMatch.
        let error = #expect(throws: RouteError.self) { try router.back() }
        #expect(error?.kind == .nothingToGoBack)
    }

    @Test func backInsideAModalPopsItsStackFirstThenDismissesIt() throws {
        let router = Router(tree: try MonarchExample.tree(), presenter: HeadlessPresenter())
        _ = try router.dispatch("orders/5")
        _ = try router.back()
        #expect(router.state.request?.path == "orders")
        _ = try router.back()
        #expect(router.state.request?.path == "profile")
        #expect(router.store["profile"]?.modal == nil)
    }
}
