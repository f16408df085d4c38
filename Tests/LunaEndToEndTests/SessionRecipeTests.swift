import Foundation
import LunaInspector
import LunaLink
import LunaLive
import LunaTestSupport
import RouteCore
import Testing

/// docs/recipes.md, "Driving the app from the session": `luna serve` on the recipe's script,
/// an app linked to it, a deep link sent as `luna go` sends it, the page's Sign in button (its
/// flag) — and the app shows, step by step, what the session shows.
@MainActor
@Suite struct SessionRecipeTests {
    @Test func theLinkedAppFollowsTheDeepLinkAndTheSignIn() async throws {
        let source = try String(
            contentsOfFile: repositoryRoot + "/examples/recipes/signin-continue.lua", encoding: .utf8)
        let served = try ServedScript(example: "signin-continue.lua", source: source)
        defer { served.stop() }
        try served.session.dispatch("home")
        let link = LunaLink(url: served.inspector.url, idiom: .phone, presenter: HeadlessPresenter())
        link.start()
        defer { link.stop() }
        try await LunaLinkTests.until("the app's first plan") { link.request == "home" }

        // `luna go URL myapp://account/orders/7`: signed out, the app shows Sign in.
        let replies = try await SessionRequests.dispatch(
            ["myapp://account/orders/7"], at: try LinkAddress(served.inspector.url))
        #expect(replies.count == 1 && replies[0].contains(#""ok":true"#), "\(replies)")
        try await LunaLinkTests.until("Sign in on the app") { link.presentables["signin"] != nil }
        #expect(LunaLinkTests.rendered(link) == LunaLinkTests.sessionRendered(served))

        // The Sign in button sets its flag: the kept request is resolved again, on the app too.
        try served.session.perform(.flag("signedIn", "yes"))
        try await LunaLinkTests.until("the order on the app") { link.request == "myapp://account/orders/7" }
        #expect(link.presentables["account/orders/:id"] != nil)
        #expect(LunaLinkTests.rendered(link) == LunaLinkTests.sessionRendered(served))
    }
}
