import RouteCore
import Testing

@testable import RouteScript

@Suite struct ExamplesTests {
    @Test func featherweightDemoFlowsAndLeafTab() throws {
        let host = try RouteScriptHost(contentsOf: example("featherweight.lua"))
        // The demo's paths, as its AppCoordinator declares them.
        #expect(
            host.routeTree?.endpoints.map(\.definition.displayText)
                == ["welcome", "welcome/register", "welcome/register/step2", "welcome/login", "about"])
        _ = try host.dispatch("welcome")
        _ = try host.dispatch("welcome/register/step2")
        #expect(host.tree?.children[0].children.map(\.title) == ["Welcome", "Register", "Step 2"])
        _ = try host.dispatch("welcome/login")
        #expect(host.tree?.children[0].children.map(\.title) == ["Welcome", "Log in"])
        let about = try host.dispatch("about")
        #expect(about.plan.operations.map(\.text) == ["update about", "select root 1 (about)"])
    }

    @Test func animalsAndZoosFromFeatherweightsReadme() throws {
        let host = try RouteScriptHost(contentsOf: example("animals.lua"))
        let animal = try host.dispatch("animals/tiger")
        #expect(animal.route == "regex:animals/(?<id>\\w+)")
        #expect(animal.resolution.params == ["id": "tiger"])
        #expect(host.tree?.children[0].children.map(\.id) == ["animals", "animal"])
        #expect(try host.dispatch("zoos/berlin").resolution.params == ["id": "berlin"])
        #expect(host.tree?.children[1].children.map(\.id) == ["zoos", "zoos/:id"])
        #expect(throws: RouteError.self) { try host.dispatch("animals/big-cat") }
    }

    @Test func routerServiceFlagsFallbacksAndNamedRequests() throws {
        let host = try RouteScriptHost(contentsOf: example("routerservice.lua"))
        let product = try host.dispatch(#"product|{"id":7,"ref":"push"}"#)
        #expect(product.resolution.request.path == "products/7")
        let screen = try #require(host.tree?.children.first?.children.last)
        #expect(screen.title == "Product 7")
        #expect(screen.attributes["referrer"] == .string("push"))
        #expect(try host.dispatch("checkout").route == "checkout/classic")
        let switched = try #require(try host.setFlag("newCheckout", "on"))
        #expect(switched.route == "checkout")
        #expect(try host.dispatch("item/9").resolution.request.path == "products/9")
        let disabled = #expect(throws: RouteError.self) { try host.dispatch("products/7/reviews") }
        #expect(disabled?.kind == .disabled)
        try host.setFlag("reviews", "on")
        #expect(try host.dispatch("products/7/reviews").route == "products/:id/reviews")
        let unknown = #expect(throws: RouteError.self) { try host.dispatch(#"cart|{}"#) }
        #expect(unknown?.kind == .unknownRoute)
    }

    @Test func deviceExampleKeepsTheStateAcrossDevices() throws {
        let host = try RouteScriptHost(contentsOf: example("device.lua"))
        _ = try host.dispatch("inbox/7")
        _ = try host.dispatch("settings")
        #expect(host.tree?.children.map(\.id) == ["mail", "settings"])
        // Pad: Mail is a split view whose sidebar (inbox) and detail (the message) both stay,
        // and Drafts is a tab; the kept tab's stack survives the switch.
        let summary = try host.setDevice(.pad)
        #expect(summary.warning == nil)
        #expect(host.state.request?.path == "settings")
        #expect(host.tree?.children.map(\.id) == ["mail", "drafts", "settings"])
        #expect(host.tree?.selected == 2)
        let mail = try #require(host.tree?.children.first)
        #expect(mail.title == "Mailboxes" && mail.attributes["split"] == .boolean(true))
        #expect(mail.children.map(\.id) == ["inbox", "inbox/:message"])
        // A deep link on the pad shows the sidebar and the detail.
        _ = try host.dispatch("inbox/3")
        #expect(host.tree?.children.first?.children.map(\.title) == ["Inbox", "Message 3"])
        _ = try host.dispatch("drafts")
        // Phone: Drafts is a sheet over the inbox; back to the pad and the tab is there again.
        try host.setDevice(.phone)
        #expect(host.tree?.children.map(\.id) == ["mail", "settings"])
        #expect(host.tree?.children.first?.children.first?.modal?.id == "drafts")
        try host.setDevice(.pad)
        #expect(host.tree?.selected == 1)
        #expect(host.state.request?.path == "drafts")
    }

    @Test(arguments: ["books.lua", "featherweight.lua", "animals.lua", "routerservice.lua", "device.lua"])
    func everyExampleLoadsAndEveryNamedRouteRoundTrips(name: String) throws {
        let host = try RouteScriptHost(contentsOf: example(name))
        let tree = try #require(host.routeTree)
        #expect(!tree.endpoints.isEmpty)
        for (routeName, route) in tree.routeNames {
            let names = tree.matcher.parameterNames[route]
            let params = Dictionary(uniqueKeysWithValues: names.map { ($0, "1") })
            let path = try tree.path(forRouteNamed: routeName, parameters: params)
            let match = try #require(try tree.matcher.match(path))
            #expect(match.route == route.index, "\(routeName)")
            #expect(match.parameters(in: tree.matcher) == params, "\(routeName)")
        }
    }
}

@Suite struct LoadFromTextTests {
    @Test func aScriptLoadsFromTextAndReEvaluatesForADevice() throws {
        let host = RouteScriptHost()
        try host.load(
            source: """
                if device.idiom == 'pad' then return junction { endpoint { 'a', title = 'Pad' } } end
                return stack { endpoint { 'a', title = 'Phone' } }
                """, name: "inline.lua")
        _ = try host.dispatch("a")
        #expect(host.tree?.children.first?.title == "Phone")
        try host.setDevice(.pad)
        #expect(host.tree?.children.first?.title == "Pad")
        #expect(host.files.isEmpty)
        let error = #expect(throws: RouteScriptError.self) {
            try RouteScriptHost().load(source: "return endpoint { 'a', titel = 'x' }", name: "inline.lua")
        }
        #expect(error?.message == "inline.lua:1: endpoint: unknown field 'titel' (did you mean 'title'?)")
    }
}
