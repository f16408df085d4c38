import Foundation
import LunaInspector
import LunaLink
import LunaLive
import LunaTestSupport
import RouteCore
import RouteScript
import Testing

/// `LunaLink` against a real `luna serve` session on loopback: the app's presenter (here the
/// headless one, so its tree can be compared) shows what the session shows after every change,
/// wherever it was made; the app's own steps reach the session.
@MainActor
@Suite(.serialized) struct LunaLinkTests {
    /// Waits (on the main actor, letting the link run) until `condition` holds. The bound is
    /// generous: other suites' `@MainActor` tests (a `ScriptHost` running a script into its
    /// limits) hold the main actor for seconds when the whole suite runs in parallel.
    static func until(
        _ what: String, timeout: Duration = .seconds(120), _ condition: () -> Bool
    ) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while !condition() {
            guard clock.now < deadline else { throw LinkError("timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    static func rendered(_ link: LunaLink<HeadlessPresenter>) -> String? {
        guard let root = link.tree?.root.id else { return nil }
        return link.presentables[root]?.rendered()
    }

    static func sessionRendered(_ served: ServedScript) -> String? { served.session.withHost { $0.tree?.rendered() } }

    @Test func theAppShowsWhatTheSessionShowsAfterEveryChange() async throws {
        let served = try ServedScript()
        defer { served.stop() }
        let url = served.inspector.url
        let link = LunaLink(url: url, idiom: .phone, presenter: HeadlessPresenter())
        var events: [LunaLink<HeadlessPresenter>.Event] = []
        link.onEvent = { events.append($0) }
        link.start()
        defer { link.stop() }
        try await Self.until("the first plan") { events.contains { if case .applied = $0 { true } else { false } } }
        #expect(link.isConnected)
        // Nothing dispatched yet: nothing shown on either side.
        #expect(link.request == nil)

        for request in ["books/42?title=Dune", "today/story/news/7", "orders/5", "books", "login", "books/7#top"] {
            try served.session.dispatch(request)
            try await Self.until("\(request) on the app") { link.request == request }
            #expect(Self.rendered(link) == Self.sessionRendered(served), "after \(request)")
        }
        // The hook's title reached the app's view.
        #expect(link.presentables["books/:id"]?.title == "Book 7")

        // The app's user goes back (an interactive pop): the session follows.
        #expect(link.back())
        try await Self.until("back in the session") {
            served.session.withHost { $0.state.request?.original } == "books" && link.request == "books"
        }
        #expect(Self.rendered(link) == Self.sessionRendered(served))
        #expect(served.session.history.last?.kind == .back)

        // A row tapped in the app.
        #expect(link.dispatch("books/3?title=Emma"))
        try await Self.until("the row's screen") { link.request == "books/3?title=Emma" }
        #expect(Self.rendered(link) == Self.sessionRendered(served))
        #expect(link.presentables["books/:id"]?.title == "Emma")

        // A request that matches nothing is refused, and the app stays as it was.
        #expect(link.dispatch("books/%zz"))
        try await Self.until("the refusal") { events.contains { if case .refused = $0 { true } else { false } } }
        #expect(Self.rendered(link) == Self.sessionRendered(served))

        // A saved title change reaches the app's kept presentable.
        let text = try String(contentsOfFile: served.script, encoding: .utf8)
        served.save(
            text.replacingOccurrences(
                of: #"endpoint { "books", title = "Books","#, with: #"endpoint { "books", title = "Library","#))
        try await Self.until("the reload") { link.presentables["books"]?.title == "Library" }
        #expect(Self.rendered(link) == Self.sessionRendered(served))
    }

    /// Pushed screens over the link (docs/dsl.md, "Push"): the app pushes, the session pushes,
    /// and the app's presenter holds one presentable per instance (`accounts/:account#2`),
    /// popped by the app's own Back.
    @Test func pushedInstancesReachTheAppAndItsBackPopsOne() async throws {
        let source = try String(contentsOfFile: repositoryRoot + "/examples/bank.lua", encoding: .utf8)
        let served = try ServedScript(example: "bank.lua", source: source)
        defer { served.stop() }
        let link = LunaLink(url: served.inspector.url, idiom: .phone, presenter: HeadlessPresenter())
        link.start()
        defer { link.stop() }
        try served.session.dispatch("accounts/1234")
        try await Self.until("the account on the app") { link.request == "accounts/1234" }
        // The app pushes (a row of the account's payees).
        #expect(link.push("accounts/5678"))
        try await Self.until("the pushed account") { link.presentables["accounts/:account#2"] != nil }
        #expect(link.presentables["accounts/:account#2"]?.title == "Account •5678")
        #expect(link.presentables["accounts/:account"]?.title == "Account •1234")
        #expect(Self.rendered(link) == Self.sessionRendered(served))
        #expect(served.session.history.last?.commands == [.push("accounts/5678")])
        // The session pushes again.
        _ = try served.session.perform(.push("accounts/1234"))
        try await Self.until("the third instance") { link.presentables["accounts/:account#3"] != nil }
        #expect(Self.rendered(link) == Self.sessionRendered(served))
        // The app's user swipes back: one instance goes, on both sides.
        #expect(link.back())
        try await Self.until("the pop") { link.presentables["accounts/:account#3"] == nil }
        #expect(served.session.withHost { $0.state.request?.original } == "accounts/5678")
        #expect(Self.rendered(link) == Self.sessionRendered(served))

        // The tab bar's sheet over the pushed account; the app closes it (a Close button).
        try served.session.dispatch("transfer")
        try await Self.until("the sheet") { link.presentables["accounts/:account#2"]?.modal?.id == "transfer-flow" }
        #expect(link.close())
        try await Self.until("the sheet closed") { link.presentables["transfer-flow"] == nil }
        #expect(served.session.withHost { $0.state.request?.original } == "accounts/5678")
        #expect(Self.rendered(link) == Self.sessionRendered(served))

        // The picker: the app's user goes back handing the choice to the form, once.
        try served.session.dispatch("transfer/payee")
        try await Self.until("the picker") { link.presentables["transfer/payee"] != nil }
        #expect(link.back(result: ["name": .string("Ada"), "payee": .string("ada")]))
        try await Self.until("the result on the form") {
            link.presentables["transfer"]?.activation?.result == ["name": .string("Ada"), "payee": .string("ada")]
        }
        #expect(link.presentables["transfer/payee"] == nil)
        #expect(link.presentables["transfer"]?.title == "Transfer to Ada")
        #expect(Self.rendered(link) == Self.sessionRendered(served))
    }

    /// A leave guard's question reaches the app (`asked`); the app answers it, and `canLeave`
    /// says ahead what the guard would say (examples/recipes/discard.lua).
    @Test func theAppIsAskedAndAnswers() async throws {
        let source = try String(contentsOfFile: repositoryRoot + "/examples/recipes/discard.lua", encoding: .utf8)
        let served = try ServedScript(example: "discard.lua", source: source)
        defer { served.stop() }
        try served.session.dispatch("accounts/transfer")
        _ = try served.session.perform(.flag("amount", "50"))
        let link = LunaLink(url: served.inspector.url, idiom: .phone, presenter: HeadlessPresenter())
        var events: [LunaLink<HeadlessPresenter>.Event] = []
        link.onEvent = { events.append($0) }
        link.start()
        defer { link.stop() }
        try await Self.until("the first plan") { link.request == "accounts/transfer" }
        #expect(link.canLeave("accounts/transfer", to: "accounts"))
        try await Self.until("the answer") {
            events.contains(.leaveAnswer(node: "accounts/transfer", answer: .ask("Discard this transfer of 50?")))
        }
        #expect(link.back())
        try await Self.until("the question") {
            events.contains(.asked(question: "Discard this transfer of 50?", node: "accounts/transfer"))
        }
        #expect(served.session.withHost { $0.state.request?.original } == "accounts/transfer")
        #expect(Self.rendered(link) == Self.sessionRendered(served))
        #expect(link.confirm())
        try await Self.until("the change") { link.request == "accounts" }
        #expect(Self.rendered(link) == Self.sessionRendered(served))
        #expect(served.session.withHost { $0.pendingQuestion } == nil)
    }

    /// A gate waiting in the session is answered by the app: the app sets the flag its guard
    /// reads (its session checked), and it shows where the link was going
    /// (examples/recipes/splash.lua).
    @Test func theAppAnswersAGate() async throws {
        let source = try String(contentsOfFile: repositoryRoot + "/examples/recipes/splash.lua", encoding: .utf8)
        let served = try ServedScript(example: "splash.lua", source: source)
        defer { served.stop() }
        try served.session.dispatch("home/orders/7")
        let link = LunaLink(url: served.inspector.url, idiom: .phone, presenter: HeadlessPresenter())
        link.start()
        defer { link.stop() }
        try await Self.until("the splash") { link.request == "splash" }
        #expect(served.session.withHost { $0.waitingGate?.request } == "home/orders/7")
        #expect(link.setFlag("session", "valid"))
        try await Self.until("the kept request") { link.request == "home/orders/7" }
        #expect(Self.rendered(link) == Self.sessionRendered(served))
    }

    @Test func aReconnectingAppGetsOnlyTheDifference() async throws {
        let served = try ServedScript()
        defer { served.stop() }
        try served.session.dispatch("books/42")
        let link = LunaLink(url: served.inspector.url, idiom: .phone, presenter: HeadlessPresenter())
        var applied: [[String]] = []
        link.onEvent = { if case .applied(_, let operations) = $0 { applied.append(operations) } }
        link.start()
        try await Self.until("the first plan") { link.request == "books/42" }
        let book = link.presentables["books/:id"]
        link.stop()

        try served.session.dispatch("today")
        applied = []
        link.start()
        defer { link.stop() }
        try await Self.until("the resumed plan") { link.request == "today" }
        let operations = applied.flatMap { $0 }
        #expect(!operations.contains("create books/:id") && !operations.contains("create stack:books"))
        #expect(operations.contains("create today"))
        // The same presentable object, reused.
        #expect(link.presentables["books/:id"] === book)
        #expect(Self.rendered(link) == Self.sessionRendered(served))
    }

    @Test func aPhoneAndAPadFollowOneSession() async throws {
        let served = try ServedScript(example: "device.lua")
        defer { served.stop() }
        let phone = LunaLink(url: served.inspector.url, idiom: .phone, presenter: HeadlessPresenter())
        let pad = LunaLink(url: served.inspector.url, idiom: .pad, presenter: HeadlessPresenter())
        phone.start()
        pad.start()
        defer {
            phone.stop()
            pad.stop()
        }
        try await Self.until("both connected") { phone.tree != nil && pad.tree != nil }
        try served.session.dispatch("inbox/7")
        try await Self.until("both on the message") { phone.request == "inbox/7" && pad.request == "inbox/7" }
        try served.session.dispatch("drafts")
        try await Self.until("both on drafts") { phone.request == "drafts" && pad.request == "drafts" }
        #expect(Self.rendered(phone) == Self.sessionRendered(served))
        // The same state on the pad's own tree, as a pad session would show it.
        let padHost = try RouteScriptHost(
            contentsOf: served.script,
            options: {
                var o = RouteScriptOptions(); o.device = .pad; return o
            }())
        try padHost.dispatch("inbox/7")
        try padHost.dispatch("drafts")
        #expect(Self.rendered(pad) == padHost.tree?.rendered())
        #expect(Self.rendered(pad) != Self.rendered(phone))
    }

    @Test func aBadURLOrTokenSaysWhy() async throws {
        let served = try ServedScript()
        defer { served.stop() }
        for (url, expected) in [
            ("http://127.0.0.1/?token=x", "no port"),
            ("http://127.0.0.1:\(served.port)/", "no token"),
            ("https://127.0.0.1:\(served.port)/?token=x", "plain HTTP"),
            ("http://127.0.0.1:\(served.port)/?token=wrong", "403"),
        ] {
            var options = LunaLink<HeadlessPresenter>.Options()
            options.reconnect = false
            let link = LunaLink(url: url, idiom: .phone, presenter: HeadlessPresenter(), options: options)
            var said: String?
            link.onEvent = { if case .disconnected(let why) = $0 { said = why } }
            link.start()
            try await Self.until("the refusal of \(url)") { said != nil }
            #expect(said?.contains(expected) == true, "\(url): \(said ?? "")")
            link.stop()
        }
    }
}
