import Testing

@testable import RouteCore

/// Rollback is the presenter's: the router calls `begin`, then `commit` or `rollback`, and
/// any presenter (not only the headless one) can take part.
@Suite struct TransactionTests {
    /// Keeps a list of screen names as its "UI" and can undo it; fails on a chosen node.
    final class ListPresenter: Presenter {
        var shown: [String] = []
        var saved: [String]?
        var calls: [String] = []
        var failOn: String?

        func create(_ node: RouteTree.Node, activation: Activation?) throws -> String {
            if node.id == failOn { throw RouteError(.script, "cannot create \(node.id)") }
            shown.append(node.id)
            return node.id
        }
        func setStack(_ stack: String, node: RouteTree.Node, items: [String]) throws {}
        func setOptions(_ container: String, node: RouteTree.Node, options: [String]) throws {}
        func select(_ container: String, node: RouteTree.Node, index: Int, option: String) throws {}
        func presentModal(_ modal: String, over presenter: String, node: RouteTree.Node) throws {}
        func dismissModal(_ modal: String, from presenter: String, node: RouteTree.Node) throws {}
        func unwind(_ presentable: String, node: RouteTree.Node) throws { shown.removeAll { $0 == presentable } }

        func begin() {
            calls.append("begin")
            saved = shown
        }
        func commit() {
            calls.append("commit")
            saved = nil
        }
        func rollback() {
            calls.append("rollback")
            if let saved { shown = saved }
        }
    }

    @Test func aFailedPlanIsTakenBackByThePresenter() throws {
        let presenter = ListPresenter()
        let router = Router(tree: try FeatherweightBehaviourTests.tree(), presenter: presenter)
        _ = try router.dispatch("welcome")
        #expect(presenter.calls == ["begin", "commit"])
        let before = presenter.shown
        presenter.failOn = "welcome/register/step2"
        #expect(throws: RouteError.self) { try router.dispatch("welcome/register/step2") }
        #expect(presenter.calls == ["begin", "commit", "begin", "rollback"])
        #expect(presenter.shown == before, "welcome/register was created, then taken back")
        #expect(router.state.request?.path == "welcome")
        #expect(router.store["welcome/register"] == nil)
        // A request that does not resolve never reaches the presenter.
        #expect(throws: RouteError.self) { try router.dispatch("nowhere") }
        #expect(presenter.calls.count == 4)
    }

    @Test func theHeadlessPresenterPutsEveryPresentableBack() throws {
        let router = Router(tree: try FeatherweightBehaviourTests.tree(), presenter: HeadlessPresenter())
        _ = try router.dispatch("welcome/register")
        let before = try #require(router.rootPresentable).rendered()
        // A failing prelude after the plan's structural changes were made by hand.
        let transition = Reducer(tree: router.tree).reduce(router.state, to: try router.tree.resolve("login"))
        #expect(throws: RouteError.self) {
            try router.apply(transition) {
                router.store["stack:welcome"]?.title = "changed"
                throw RouteError(.script, "the UI refused")
            }
        }
        #expect(router.rootPresentable?.rendered() == before)
        #expect(router.store["stack:welcome"]?.title != "changed")
        #expect(router.state.request?.path == "welcome/register")
    }

    /// The journal keeps a presentable's activation alone when that is its first change, and
    /// its whole state when something else changes after: a rollback puts back both, in
    /// either order of the changes, and a commit keeps both.
    @Test func aRollbackPutsBackTheActivationAndWhatChangedAfterIt() throws {
        let first = Activation(params: ["id": "1"])
        let second = Activation(params: ["id": "2"])
        let third = Activation(params: ["id": "3"], fragment: "top")
        for order in 0..<3 {
            let presenter = HeadlessPresenter()
            let screen = HeadlessPresentable(kind: .screen, id: "books/:id", title: "Book")
            presenter.adopt([screen])
            screen.activation = first
            screen.attributes = ["seen": .string("one")]
            presenter.begin()
            switch order {
            case 0:
                screen.activation = second
                screen.title = "Changed"
                screen.activation = third
            case 1:
                screen.title = "Changed"
                screen.activation = second
            default:
                screen.activation = second
                screen.activation = third
            }
            presenter.rollback()
            #expect(screen.activation == first, "order \(order)")
            #expect(screen.title == "Book" && screen.attributes == ["seen": .string("one")], "order \(order)")
            presenter.begin()
            screen.activation = second
            screen.title = "Kept"
            presenter.commit()
            presenter.begin()
            presenter.rollback()
            #expect(screen.activation == second && screen.title == "Kept", "order \(order)")
        }
    }

    /// A plan of one `update` holds its node's place in the tree it was made on; applied to a
    /// tree where that place holds another node (the same script, a route declared above it),
    /// the node is found by its id.
    @Test func aPlanOfOneUpdateFindsItsNodeInAnotherTree() throws {
        let before = try RouteTree(root: .stack([.endpoint("books"), .endpoint("books/:id")], id: "main"))
        let after = try RouteTree(
            root: .stack([.endpoint("authors"), .endpoint("books"), .endpoint("books/:id")], id: "main"))
        let router = Router(tree: after, presenter: HeadlessPresenter())
        _ = try router.dispatch("books/1")
        let transition = Reducer(tree: before).reduce(router.state, to: try before.resolve("books/2"))
        #expect(transition.plan.operations == [.update(id: "books/:id")])
        try router.apply(transition)
        #expect(router.store["books/:id"]?.activation?.params == ["id": "2"])
        #expect(router.store["books"]?.activation == nil && router.store["authors"] == nil)
        // On its own tree: the match's node by its place, its activation the state's.
        let result = try router.dispatch("books/3?x=1")
        #expect(result.plan.operations == [.update(id: "books/:id")])
        #expect(router.store["books/:id"]?.activation?.params == ["id": "3"])
        #expect(router.store["books/:id"]?.activation?.query == ["x": "1"])
        // Again: the presentation is kept, the store's screen updated from the state.
        let again = try router.dispatch("books/4#end")
        #expect(again.plan.operations == [.update(id: "books/:id")])
        let activation = try #require(router.store["books/:id"]?.activation)
        #expect(activation.params == ["id": "4"] && activation.query.isEmpty && activation.fragment == "end")
        #expect(router.state.presented?.topScreen?.activation == activation)
    }

    /// A screen unwound and made again is a new presentable: the next `update` goes to it, not
    /// to the one the updates before went to.
    @Test func aScreenMadeAgainGetsTheNextUpdate() throws {
        let tree = try RouteTree(root: .stack([.endpoint("books"), .endpoint("books/:id")], id: "main"))
        let router = Router(tree: tree, presenter: HeadlessPresenter())
        _ = try router.dispatch("books/1")
        _ = try router.dispatch("books/2")
        let first = try #require(router.store["books/:id"])
        _ = try router.dispatch("books")
        #expect(router.store["books/:id"] == nil)
        _ = try router.dispatch("books/3")
        let second = try #require(router.store["books/:id"])
        #expect(second !== first)
        #expect(try router.dispatch("books/4").plan.operations == [.update(id: "books/:id")])
        #expect(second.activation?.params == ["id": "4"])
        #expect(first.activation?.params == ["id": "2"])
        // The same after the store was replaced (a reload hands the router its presentables).
        router.replace(
            tree: tree, state: router.state, presentables: router.store.presentables.filter { $0.key != "books/:id" })
        #expect(throws: RouteError.self, "the screen is not in the store any more") {
            try router.dispatch("books/5")
        }
        #expect(second.activation?.params == ["id": "4"])
    }
}

/// A node's identity is its id, whatever tree it comes from.
@Suite struct NodeIDTests {
    @Test func identitiesAreEqualAcrossTreesAndThreads() async throws {
        let first = try FeatherweightBehaviourTests.tree()
        let second = try FeatherweightBehaviourTests.tree()
        #expect(first.nodes.map(\.nodeID) == second.nodes.map(\.nodeID))
        #expect(first.nodes[1].nodeID != first.nodes[2].nodeID)
        #expect(first.nodes.map(\.nodeID.rawValue) == first.nodes.map(\.id))
        let made: NodeID = "stack:welcome"
        #expect(made == NodeID("stack:welcome") && made != NodeID("stack:login"))
        #expect(Set([made, NodeID("stack:welcome")]).count == 1)
        #expect(first[made]?.kind == .stack && first["nowhere"] == nil)
        #expect(NodeID("a") < NodeID("b") && "\(made)" == "stack:welcome")
        // Identities made on many threads at once agree.
        let names = (0..<200).map { "concurrent-\($0 % 50)" }
        let results = await withTaskGroup(of: [NodeID].self) { group in
            for _ in 0..<8 { group.addTask { names.map { NodeID($0) } } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        for ids in results { #expect(ids == results[0]) }
        #expect(Set(results[0]).count == 50)
    }
}

/// The presentation index: scanned when small, sorted when large; both find every node.
@Suite struct PresentedIndexTests {
    @Test(arguments: [3, 32, 40])
    func everyNodeIsFoundAndWalkedInOrder(tabs: Int) throws {
        let tree = try RouteTree(
            root: .junction((0..<tabs).map { .stack([.endpoint("tab\($0)", children: [.endpoint("./:id")])]) }))
        let state = Reducer(tree: tree).reduce(.initial, to: try tree.resolve("tab1/7")).to
        let presented = try #require(state.presented)
        var preorder: [NodeID] = []
        presented.forEach { preorder.append($0.node) }
        let index = PresentedIndex(presented)
        #expect(index.order.map(\.node) == preorder)
        for node in preorder { #expect(index[node]?.node == node) }
        #expect(index["tab2/:id"] == nil, "not on screen")
        let filtered = PresentedIndex(presented) { $0.node != "stack:tab0" }
        #expect(filtered["stack:tab0"] == nil && filtered["stack:tab1"] != nil)
        #expect(filtered.order.map(\.node) == preorder.filter { $0 != "stack:tab0" })
    }
}
