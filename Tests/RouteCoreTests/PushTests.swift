import Testing

@testable import RouteCore

/// Pushed screens (docs/dsl.md, "Push"): the same screen twice on a stack, Back popping one,
/// the extension rule, the naming of instances, re-resolution and restoration.
@Suite struct PushTests {
    /// Two tabs. Accounts: `accounts` → `accounts/:account` → `./transactions/:tx`; the
    /// account presents a `note` sheet. Payees: `payees` → `payees/:payee`. The accounts
    /// stack also takes pushes of `payees/:payee` (its `pushes` list names it by route name).
    static func tree(pushesList: Bool = true, signedIn: Locked<Bool>? = nil) throws -> RouteTree {
        var account = EndpointSpec(pattern: "./:account")
        account.name = "account"
        if let signedIn {
            account.enabled = { context in context.params["account"] != "9999" || signedIn.withLock { $0 } }
            account.fallback = "accounts"
        }
        var accounts = NodeSpec.stack(
            [
                .endpoint(
                    "accounts",
                    children: [
                        NodeSpec(
                            kind: .endpoint, children: [.endpoint("./transactions/:tx")],
                            modals: [.endpoint("note")], endpoint: account)
                    ])
            ], id: "accounts-tab")
        if pushesList { accounts.pushes = ["account", "accounts/:account/transactions/:tx", "payee"] }
        var payee = EndpointSpec(pattern: "./:payee")
        payee.name = "payee"
        let payees = NodeSpec.stack(
            [.endpoint("payees", children: [NodeSpec(kind: .endpoint, endpoint: payee)])], id: "payees-tab")
        return try RouteTree(root: .junction([accounts, payees]))
    }

    static func router(_ tree: RouteTree) -> Router<HeadlessPresenter> {
        Router(tree: tree, presenter: HeadlessPresenter())
    }

    /// The ids of the stack's items, in order.
    static func items(_ router: Router<HeadlessPresenter>, _ stack: String = "accounts-tab") -> [String] {
        guard case .stack(_, let items)? = router.state.presented?.first(NodeID(stack)) else { return [] }
        return items.map(\.node.rawValue)
    }

    static func param(_ router: Router<HeadlessPresenter>, _ id: String, _ name: String = "account") -> String? {
        guard case .screen(_, let activation?, _)? = router.state.presented?.first(NodeID(id)) else { return nil }
        return activation.params[name]
    }

    @Test func theSameScreenPushedTwiceIsTwoInstancesAndBackPopsOne() throws {
        let router = Self.router(try Self.tree())
        try router.dispatch("accounts/1234")
        let pushed = try router.push("accounts/5678")
        #expect(Self.items(router) == ["accounts", "accounts/:account", "accounts/:account#2"])
        #expect(Self.param(router, "accounts/:account") == "1234")
        #expect(Self.param(router, "accounts/:account#2") == "5678")
        #expect(router.state.request?.original == "accounts/5678")
        #expect(
            pushed.plan.operations.map(\.text) == [
                "create accounts/:account#2",
                "setStack accounts-tab [accounts, accounts/:account, accounts/:account#2]",
            ])
        // The presenter made a presentable named as the instance, activated with its own request.
        let instance = try #require(router.store["accounts/:account#2"])
        #expect(instance.id == "accounts/:account#2")
        #expect(instance.activation?.params["account"] == "5678")
        try router.push("accounts/4321")
        #expect(Self.items(router).last == "accounts/:account#3")
        // Back pops one instance at a time, then goes down the declared chain.
        let back = try router.back()
        #expect(back.plan.operations.map(\.text) == ["unwind accounts/:account#3"])
        #expect(router.store["accounts/:account#3"] == nil)
        #expect(router.state.request?.original == "accounts/5678")
        try router.back()
        #expect(Self.items(router) == ["accounts", "accounts/:account"])
        #expect(router.state.request?.original == "accounts/1234")
        try router.back()
        #expect(Self.items(router) == ["accounts"])
    }

    @Test func aStackTakesItsOwnScreensOrItsListAndRefusesOthers() throws {
        let own = Self.router(try Self.tree(pushesList: false))
        try own.dispatch("accounts/1234")
        try own.push("accounts/1234/transactions/t9")
        #expect(Self.items(own).last == "accounts/:account/transactions/:tx")
        let refused = #expect(throws: RouteError.self) { try own.push("payees/p1") }
        #expect(refused?.kind == .notPushable)
        #expect(refused?.message.contains("accounts-tab does not take pushes of payees/:payee") == true)
        #expect(Self.items(own).count == 3)

        // With the list: a payee pushed onto the accounts stack is `payees/:payee#2`, so the
        // payees tab's own screen keeps its name.
        let listed = Self.router(try Self.tree())
        try listed.dispatch("payees/p1")
        try listed.dispatch("accounts/1234")
        try listed.push("payees/p2")
        #expect(Self.items(listed).last == "payees/:payee#2")
        #expect(Self.items(listed, "payees-tab") == ["payees", "payees/:payee"])
        #expect(Self.param(listed, "payees/:payee#2", "payee") == "p2")
        #expect(Self.param(listed, "payees/:payee", "payee") == "p1")
    }

    @Test func aPushListThatNamesNothingIsALoadError() throws {
        var stack = NodeSpec.stack([.endpoint("a")])
        stack.pushes = ["nowhere"]
        let error = #expect(throws: RouteDefinitionError.self) { try RouteTree(root: stack) }
        #expect(error?.message.contains("pushes entry 'nowhere' of stack 'root' names no screen") == true)
        var endpoint = NodeSpec.endpoint("a")
        endpoint.pushes = ["a"]
        #expect(throws: RouteDefinitionError.self) { try RouteTree(root: .stack([endpoint])) }
        // An id that reads as an instance name is refused.
        let clash = #expect(throws: RouteDefinitionError.self) {
            try RouteTree(root: .stack([.endpoint("a", id: "screen#2")]))
        }
        #expect(clash?.message.contains("ends in #NUMBER") == true)
    }

    @Test func aRequestThatExtendsTheTopPushedScreenKeepsThePushesBelowIt() throws {
        let router = Self.router(try Self.tree())
        try router.dispatch("accounts/1234")
        try router.push("accounts/5678")
        // A child of the top instance, with its parameters: stays above it.
        try router.dispatch("accounts/5678/transactions/t1")
        #expect(
            Self.items(router) == [
                "accounts", "accounts/:account", "accounts/:account#2", "accounts/:account/transactions/:tx",
            ])
        // Again, to another transaction: still kept, the transaction updated.
        try router.dispatch("accounts/5678/transactions/t2")
        #expect(Self.items(router).count == 4)
        #expect(Self.param(router, "accounts/:account/transactions/:tx", "tx") == "t2")
        // Back from the transaction: the pushed account again.
        try router.back()
        #expect(Self.items(router).last == "accounts/:account#2")
        // `note` is a modal of accounts/:account whose pattern carries no account: it does not
        // extend the pushed 5678, so the declared chain replaces the pushes.
        try router.dispatch("note?account=5678")
        #expect(Self.items(router) == ["accounts", "accounts/:account"])

        // Another account (not the pushed one's): the declared chain replaces the pushes.
        try router.dispatch("accounts/1234")
        try router.push("accounts/5678")
        try router.dispatch("accounts/1234/transactions/t1")
        #expect(Self.items(router) == ["accounts", "accounts/:account", "accounts/:account/transactions/:tx"])
        #expect(Self.param(router, "accounts/:account") == "1234")
        // The same screen as the top instance is not a child of it: the declared chain.
        try router.push("accounts/5678")
        try router.dispatch("accounts/5678")
        #expect(Self.items(router) == ["accounts", "accounts/:account"])
        #expect(Self.param(router, "accounts/:account") == "5678")
    }

    @Test func aTabSwitchKeepsAnotherTabsPushes() throws {
        let router = Self.router(try Self.tree())
        try router.dispatch("accounts/1234")
        try router.push("accounts/5678")
        try router.dispatch("payees")
        #expect(Self.items(router).last == "accounts/:account#2")
        try router.dispatch("accounts", options: .init(keepStack: true))
        #expect(Self.items(router).last == "accounts/:account#2")
        #expect(router.state.request?.original == "accounts/5678")
    }

    @Test func pushedScreensAreResolvedAgainInOrderAfterAFlagChange() throws {
        let signedIn = Locked(true)
        let router = Self.router(try Self.tree(signedIn: signedIn))
        try router.dispatch("accounts/1234")
        try router.push("accounts/9999")
        try router.push("accounts/5678")
        try router.setFlag("any", "value")
        // Nothing refused: the same stack, the same names.
        #expect(Self.items(router) == ["accounts", "accounts/:account", "accounts/:account#2", "accounts/:account#3"])
        #expect(router.state.request?.original == "accounts/5678")
        // 9999 refused now: it and what was pushed above it go, with their names.
        signedIn.withLock { $0 = false }
        let result = try #require(try router.recheckGuards())
        #expect(Self.items(router) == ["accounts", "accounts/:account"])
        #expect(result.dropped.map(\.rawValue) == ["accounts/:account#2", "accounts/:account#3"])
        #expect(router.state.request?.original == "accounts/1234")
    }

    @Test func aRestorationStringKeepsThePushedScreensAndOlderStringsStillRead() throws {
        let tree = try Self.tree()
        let router = Self.router(tree)
        try router.dispatch("accounts/1234")
        try router.push("accounts/5678")
        try router.dispatch("accounts/5678/transactions/t1")
        let saved = router.state.restorationString
        #expect(saved.contains("\"v\":2") && saved.contains("\"u\":true") && saved.contains("accounts/:account#2"))
        let restored = Self.router(tree)
        let warning = try restored.restore(restoring: saved)
        #expect(warning == nil)
        #expect(restored.state == router.state)
        #expect(Self.items(restored) == Self.items(router))
        #expect(restored.store["accounts/:account#2"]?.activation?.params["account"] == "5678")
        // Back after restoring pops the same way.
        try restored.back()
        try restored.back()
        #expect(Self.items(restored) == ["accounts", "accounts/:account"])

        // A version-1 string (no pushes) reads as before.
        let v1 =
            #"{"v":1,"r":"accounts/1234","p":["j","root",0,[["k","accounts-tab",[["s","accounts"],["s","accounts/:account",{"p":{"account":"1234"},"r":"accounts/1234"}]]],["k","payees-tab",[]]]]}"#
        let old = Self.router(tree)
        try old.restore(restoring: v1)
        #expect(Self.items(old) == ["accounts", "accounts/:account"])
        let future = #expect(throws: RouteError.self) { try old.restore(restoring: #"{"v":3}"#) }
        #expect(future?.message.contains("reads versions 1 to 2") == true)
    }

    @Test func aPushedScreenThatNoLongerResolvesIsDroppedWithAWarning() throws {
        let tree = try Self.tree()
        let router = Self.router(tree)
        try router.dispatch("accounts/1234")
        try router.push("accounts/5678")
        try router.push("payees/p2")
        // The next build takes no payees onto the accounts stack.
        let narrower = try Self.tree(pushesList: false)
        let (state, warning) = try narrower.restoredState(router.state.restorationString)
        #expect(warning?.contains("payees/:payee#2 dropped") == true)
        guard case .stack(_, let items)? = state.presented?.first(NodeID("accounts-tab")) else {
            Issue.record("no accounts stack")
            return
        }
        #expect(items.map(\.node.rawValue) == ["accounts", "accounts/:account", "accounts/:account#2"])
    }

    @Test func instanceNamesFromOutsideAreBounded() {
        _ = NodeID("bounded-screen")
        #expect(NodeID(existing: "bounded-screen#2")?.instance?.number == 2)
        #expect(NodeID(existing: "bounded-screen#64") != nil)
        #expect(NodeID(existing: "bounded-screen#65") == nil)
        #expect(NodeID(existing: "bounded-screen#02") == nil)
        #expect(NodeID(existing: "bounded-screen#1") == nil)
        #expect(NodeID(existing: "never-declared#2") == nil)
        #expect(NodeID(existing: "bounded-screen#2#3") == nil)
        #expect(NodeID("bounded-screen").instance(3).base == NodeID("bounded-screen"))
    }

    @Test func anExportedTreeCarriesThePushLists() throws {
        let tree = try Self.tree()
        let json = tree.exportJSON()
        #expect(
            json.contains(#""pushes": ["accounts/:account", "accounts/:account/transactions/:tx", "payees/:payee"]"#))
        let loaded = try RouteTree(json: json)
        #expect(loaded.pushLists == tree.pushLists)
        let router = Self.router(loaded)
        try router.dispatch("accounts/1234")
        try router.push("payees/p9")
        #expect(Self.items(router).last == "payees/:payee#2")
    }

    /// A UIKit app records its user's own Back with `sync` (the shown screen's request): a
    /// pushed screen popped by a swipe keeps the pushes below it, as `back()` does.
    @Test func aSyncAfterTheUIPoppedAPushedScreenKeepsTheStackBelow() throws {
        let router = Self.router(try Self.tree())
        try router.dispatch("accounts/1234")
        try router.push("accounts/5678")
        try router.push("accounts/9999")
        let synced = try router.sync("accounts/5678")
        #expect(Self.items(router) == ["accounts", "accounts/:account", "accounts/:account#2"])
        #expect(synced.transition.reflected == [.setStack(id: "accounts-tab", items: Self.items(router))])
        #expect(synced.plan.operations == [.unwind(id: "accounts/:account#3")])
        // A sync elsewhere is a dispatch, as before.
        try router.sync("accounts/1234")
        #expect(Self.items(router) == ["accounts", "accounts/:account"])
    }

    /// Hostile or stale restoration strings (found by the reducer oracle's mutations): a name
    /// given twice, an instance's name on a stack's first screen or on a screen pushed nowhere.
    /// Each restores without two screens of one name, cutting the stack where it goes wrong.
    @Test func aStringThatNamesAScreenTwiceOrMisplacesAnInstanceIsCut() throws {
        let tree = try Self.tree()
        let twice =
            #"{"v":2,"r":"payees","p":["j","root",1,[["k","accounts-tab",[["s","accounts"],["s","accounts/:account",{"p":{"account":"1"},"r":"accounts/1"}],["s","accounts/:account#3",{"p":{"account":"2"},"r":"accounts/2","u":true}],["s","accounts/:account#3",{"p":{"account":"3"},"r":"accounts/3","u":true}]]],["k","payees-tab",[["s","payees",{"r":"payees"}]]]]]}"#
        let restored = try tree.restoredState(twice).state
        var names: [String] = []
        restored.presented?.forEach { names.append($0.node.rawValue) }
        #expect(names.filter { $0 == "accounts/:account#3" }.count == 1, "\(names)")
        let first =
            #"{"v":2,"r":"payees","p":["j","root",1,[["k","accounts-tab",[["s","accounts"],["s","accounts/:account#2",{"p":{"account":"2"},"r":"accounts/2"}]]],["k","payees-tab",[["s","payees",{"r":"payees"}]]]]]}"#
        let cut = try tree.restoredState(first).state
        #expect(cut.presented?.first(NodeID("accounts/:account#2")) == nil)
        let router = Self.router(tree)
        #expect(throws: Never.self) { try router.restore(restoring: twice) }
    }
}
