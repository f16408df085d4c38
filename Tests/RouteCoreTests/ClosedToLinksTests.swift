import Testing

@testable import RouteCore

/// `link = false` holds on the engine's every road: a link (a URL with a scheme) whose own
/// match is a closed route is refused before any guard runs; plain paths and named requests
/// are the app's own; a fallback may land on a closed screen; a request accepted before is
/// not judged again.
@Suite struct ClosedToLinksTests {
    static func spec(signedIn: @escaping @Sendable () -> Bool = { true }) -> NodeSpec {
        var pay = NodeSpec.endpoint("checkout/pay", title: "Payment", name: "pay")
        pay.endpoint?.linkable = false
        var signin = NodeSpec.endpoint("signin", title: "Sign in")
        signin.endpoint?.linkable = false
        var orders = NodeSpec.endpoint("orders/:id", title: "Order")
        orders.endpoint?.enabled = { _ in signedIn() }
        orders.endpoint?.fallback = "signin"
        var old = NodeSpec.endpoint("old/:id", title: "Old")
        old.endpoint?.redirect = { context in "checkout/pay?from=" + (context.params["id"] ?? "") }
        return .stack([.endpoint("home", children: [pay, orders, old]), signin])
    }

    static func router(_ tree: RouteTree) -> Router<HeadlessPresenter> {
        Router(tree: tree, presenter: HeadlessPresenter())
    }

    static let refusedLinks = [
        "myapp://checkout/pay", "https://shop.example/checkout/pay?x=1#top", "HTTP://x/checkout/pay",
        "myapp://signin", "my-app+v2.x://checkout/pay",
    ]

    @Test(arguments: refusedLinks)
    func aLinkToAClosedRouteIsRefusedAndNamesTheRoute(link: String) throws {
        var hooks = RouteHooks()
        hooks.enabled["orders/:id#enabled"] = { _ in true }
        hooks.redirects["old/:id#redirect"] = { _ in nil }
        let exported = try RouteTree(json: try RouteTree(root: Self.spec()).exportJSON(), hooks: hooks)
        for tree in [try RouteTree(root: Self.spec()), exported] {
            let router = Self.router(tree)
            try router.dispatch("home")
            let before = router.state
            let error = #expect(throws: RouteError.self) { try router.dispatch(link) }
            #expect(error?.kind == .invalidRequest)
            #expect(error?.message.hasSuffix("has link = false: a link cannot open it") == true, "\(error!)")
            #expect(router.state == before)
            #expect(throws: RouteError.self) { try router.sync(link) }
            #expect(router.state == before)
        }
    }

    @Test func plainPathsAndNamedRequestsAreTheAppsOwn() throws {
        let router = Self.router(try RouteTree(root: Self.spec()))
        #expect(try router.dispatch("checkout/pay").resolution.route == router.tree.routeNames["pay"])
        #expect(try router.dispatch("/checkout/pay").resolution.route == router.tree.routeNames["pay"])
        #expect(try router.dispatch("pay|{}").resolution.route == router.tree.routeNames["pay"])
        #expect(try router.dispatch("myapp://home").plan.operations.isEmpty == false)
    }

    @Test func aFallbackOrARedirectMayLandOnAClosedRoute() throws {
        let signedIn = Locked(false)
        let router = Self.router(try RouteTree(root: Self.spec(signedIn: { signedIn.withLock { $0 } })))
        let result = try router.dispatch("myapp://orders/7")
        #expect(router.tree.endpointNode(ofRoute: result.resolution.route).id == "signin")
        let redirected = try router.dispatch("https://shop.example/old/3")
        #expect(router.tree.endpointNode(ofRoute: redirected.resolution.route).routeText == "checkout/pay")
    }

    @Test func aRequestAcceptedBeforeIsNotJudgedAgain() throws {
        let tree = try RouteTree(root: Self.spec())
        #expect(throws: RouteError.self) { try tree.resolve("myapp://checkout/pay") }
        #expect(try tree.resolve("myapp://checkout/pay", reresolving: true).request.path == "checkout/pay")
        let router = Self.router(tree)
        try router.dispatch("myapp://checkout/pay", options: .init(reresolving: true))
        // Restoration re-resolves what was shown: the string restores.
        let saved = router.state.restorationString
        let restored = Self.router(tree)
        try restored.restore(restoring: saved)
        #expect(restored.state.request?.path == "checkout/pay")
    }

    @Test func theMatchedRouteIsTheLinksOwnBeforeGuards() throws {
        let tree = try RouteTree(root: Self.spec(signedIn: { false }))
        #expect(try tree.routeMatched(by: "myapp://orders/7").map { tree[$0].definition.displayText } == "orders/:id")
        #expect(try tree.routeMatched(by: "myapp://nowhere") == nil)
        #expect(RouteTree.isLink("myapp://x") && RouteTree.isLink("https://h/x"))
        #expect(!RouteTree.isLink("x/y") && !RouteTree.isLink("pay|{}") && !RouteTree.isLink("a?u=b://c"))
    }
}
