import Testing

@testable import RouteCore

/// Gates that wait (docs/dsl.md, "Gates that wait"): a guard that answers "not known yet"
/// shows its splash and keeps the request; a flag change resolves it again; its timeout leads
/// to the fallback, on the router's own clock (no test sleeps).
@Suite struct GateTests {
    /// A tab bar behind a session check: unknown session → splash (5 s), valid → in, else sign in.
    static func router() throws -> Router<HeadlessPresenter> {
        var tabs = NodeSpec.junction([.stack([.endpoint("home")]), .stack([.endpoint("orders/:id")])])
        tabs.guardSpec = GuardSpec(
            enabled: { context in
                guard let session = context.flags["session"] else { throw GuardWait(screen: "splash", timeout: 5) }
                return session == "valid"
            }, fallback: "signin")
        return Router(
            tree: try RouteTree(root: .switcher([.endpoint("splash"), .endpoint("signin"), tabs])),
            presenter: HeadlessPresenter())
    }

    static func shown(_ router: Router<HeadlessPresenter>) -> String? { router.state.request?.original }

    @Test func theSplashWaitsAndTheAnswerContinuesToTheKeptRequest() throws {
        let router = try Self.router()
        try router.dispatch("orders/7")
        #expect(Self.shown(router) == "splash" && router.waiting?.gate.timeout == 5)
        #expect(router.state.requested == "orders/7" && router.waiting?.deadline == 5)
        // Never a frame without a screen: the splash is on screen while it waits.
        #expect(router.rootPresentable?.rendered().contains("screen splash") == true)
        try router.setFlag("session", "valid")
        #expect(Self.shown(router) == "orders/7" && router.waiting == nil)
    }

    @Test func aTimeoutLeadsToTheFallbackOnTheRoutersClock() throws {
        let router = try Self.router()
        try router.dispatch("orders/7")
        #expect(try router.advanceClock(by: 4.9) == nil)
        #expect(Self.shown(router) == "splash")
        let timedOut = try #require(try router.advanceClock(by: 0.2))
        #expect(timedOut.resolution.request.original == "signin" && Self.shown(router) == "signin")
        #expect(router.waiting == nil)
    }

    /// A flag flipped twice: the first leaves it waiting (the deadline is kept, not restarted),
    /// the second answers.
    @Test func aFlagFlippedTwice() throws {
        let router = try Self.router()
        try router.dispatch("orders/7")
        try router.advanceClock(by: 3)
        try router.setFlag("theme", "dark")
        #expect(Self.shown(router) == "splash" && router.waiting?.deadline == 5)
        try router.setFlag("session", "expired")
        #expect(Self.shown(router) == "signin" && router.waiting == nil)
        #expect(try router.advanceClock(by: 10) == nil, "a gate that answered has no timeout left")
    }

    /// A second dispatch while it waits: elsewhere, the wait ends; another gated request waits
    /// anew for that request.
    @Test func aSecondDispatchWhileWaiting() throws {
        let router = try Self.router()
        try router.dispatch("orders/7")
        try router.advanceClock(by: 4)
        try router.dispatch("signin")
        #expect(router.waiting == nil)
        try router.dispatch("home")
        #expect(Self.shown(router) == "splash" && router.state.requested == "home" && router.waiting?.deadline == 9)
        try router.setFlag("session", "valid")
        #expect(Self.shown(router) == "home")
    }
}
