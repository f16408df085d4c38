import LunaLive
import RouteCore
import RouteScript
import Testing

/// The repository root, from this file's path.
let repositoryRoot: String = {
    var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/")
}()

func books() throws -> LiveSession {
    LiveSession(host: try RouteScriptHost(contentsOf: repositoryRoot + "/examples/books.lua"))
}

/// History and time travel: every change is an entry; travelling restores an entry's tree
/// with the reducer's plan between the two states.
@Suite struct LiveSessionTests {
    /// Whether the page's redo button would be on.
    static func canRedo(_ session: LiveSession) -> Bool {
        guard case .snapshot(let snapshot)? = try? session.perform(.snapshot(routes: false)) else { return false }
        return snapshot.canRedo
    }

    static let journeys: [[String]] = [
        ["books/42?title=Dune", "today/story/news/7", "profile", "orders/5", "books/7"],
        ["login", "today", "books/1", "books/2", "today/all_news", "nope"],
        ["myapp://today/story/sports/12#top", "delivery", "books", "onboarding?name=Ann"],
    ]

    @Test(arguments: 0..<journeys.count)
    func gotoRestoresEachEntrysTreeWithTheReducersPlan(journey: Int) throws {
        let session = try books()
        var trees: [String?] = []
        var states: [RouterState] = []
        for request in Self.journeys[journey] {
            try session.dispatch(request)
            trees.append(session.withHost { $0.tree?.rendered() })
            states.append(session.withHost { $0.state })
        }
        #expect(session.history.count == trees.count)
        // Every entry, from the last one and from each other.
        for target in (0..<trees.count).reversed() {
            let before = session.withHost { $0.state }
            let outcome = try session.travel(to: target)
            #expect(session.withHost { $0.tree?.rendered() } == trees[target], "goto \(target)")
            #expect(session.withHost { $0.state } == states[target])
            let expected = session.withHost { host in
                Reducer.plan(from: before.presented, to: states[target].presented, tree: host.routeTree!)
            }
            #expect(outcome?.plan == expected, "the reducer's plan, nothing more")
            #expect(session.currentEntry == target)
        }
        // Travelling to where we are is an empty plan.
        #expect(try session.travel(to: 0)?.plan.isEmpty == true)
    }

    @Test func undoGoesBackOneEntryAtATime() throws {
        let session = try books()
        try session.dispatch("books/42")
        let first = session.withHost { $0.tree?.rendered() }
        try session.dispatch("today/story/news/7")
        let undone = try session.undo()
        #expect(session.withHost { $0.tree?.rendered() } == first)
        // The Today tab goes back to never visited: its screen and the story are unwound.
        #expect(
            undone?.plan.operations.map(\.text) == [
                "dismissModal today today/story/:type/:id", "setStack stack:today []",
                "select junction:today 1 (stack:books)", "unwind today/story/:type/:id", "unwind today",
            ])
        #expect(throws: Failure(kind: "history", message: "there is nothing to undo")) { try session.undo() }
    }

    /// Undo goes back to what was on screen before the last action — a travel included — and
    /// redo forward again, as in an editor (undo after a travel went to "index − 1").
    @Test func undoAfterATravelReturnsToWhereItStartedAndRedoGoesForward() throws {
        let session = try books()
        try session.dispatch("books/1")
        try session.dispatch("books/2")
        try session.dispatch("books/3")
        try session.travel(to: 0)
        #expect(session.withHost { $0.state.params["id"] } == "1")
        try session.undo()
        #expect(session.withHost { $0.state.params["id"] } == "3", "back to where the travel started")
        try session.undo()
        #expect(session.withHost { $0.state.params["id"] } == "2")
        #expect(Self.canRedo(session))
        try session.redo()
        #expect(session.withHost { $0.state.params["id"] } == "3")
        try session.redo()
        #expect(session.withHost { $0.state.params["id"] } == "1")
        #expect(throws: Failure(kind: "history", message: "there is nothing to redo")) { try session.redo() }
        // A new action clears what could be redone.
        try session.undo()
        try session.dispatch("books/9")
        #expect(!Self.canRedo(session))
        #expect(throws: Failure(kind: "history", message: "there is nothing to redo")) { try session.redo() }
    }

    @Test func entriesRecordEveryKindOfChange() throws {
        let session = try books()
        try session.dispatch("books/42")
        try session.back()
        try session.perform(.flag("beta", "on"))
        try session.perform(.device(.pad))
        try session.perform(.reload)
        #expect(session.history.map(\.kind) == [.dispatch, .back, .flag, .device, .reload])
        #expect(session.history.map(\.route) == ["books/:id", "books", "books", "books", "books"])
        #expect(session.history[0].line.hasSuffix("dispatch books/42 → books/:id  (11 ops)"))
        #expect(session.history[0].line.contains("  +0."), "\(session.history[0].line)")
        #expect(HistoryEntry.sinceStart(12_669.4) == "+12.7 s" && HistoryEntry.sinceStart(125_000) == "+2:05")
        #expect(HistoryEntry.sinceStart(3_725_000) == "+1:02:05")
        #expect(session.history[2].detail == "beta=on")
    }

    @Test func travelAcrossAReloadDispatchesTheEntrysRequest() throws {
        let session = try books()
        try session.dispatch("books/42")
        try session.dispatch("today")
        try session.perform(.reload)
        try session.travel(to: 0)
        #expect(session.withHost { $0.state.request?.path } == "books/42")
    }

    /// A reload that changed nothing on screen is in the history but is no undo step: Undo
    /// after it goes back to what was shown before the last visible change (it did nothing).
    @Test func undoSkipsAReloadThatChangedNothingShown() throws {
        let session = try books()
        try session.dispatch("books/42")
        try session.dispatch("today")
        try session.perform(.reload)
        #expect(session.history.map(\.kind) == [.dispatch, .dispatch, .reload])
        try session.undo()
        #expect(session.withHost { $0.state.request?.path } == "books/42")
    }

    @Test func observersSeeEveryEventInOrder() throws {
        let session = try books()
        let seen = Box<[String]>([])
        let token = session.observe { event, _ in seen.value.append(event.kind.rawValue) }
        try session.dispatch("books/42")
        _ = try? session.dispatch("books/x/y/z/../..//%zz")
        try session.back()
        try session.undo()
        token.cancel()
        try session.dispatch("today")
        #expect(seen.value == ["dispatched", "failed", "wentBack", "travelled"])
    }
}

final class Box<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }
}

/// After sign-out, the signed-in screens do not come back by the session's roads: undo, redo
/// and a travel to an entry shown while signed in go through the guards again (docs/dsl.md,
/// "Guards").
@Suite struct SignOutJourneyTests {
    static func shop() throws -> LiveSession {
        LiveSession(host: try RouteScriptHost(contentsOf: repositoryRoot + "/examples/shop.lua"))
    }

    static func shown(_ session: LiveSession) -> String? {
        session.withHost { host in host.state.route.map { host.routeTree?[$0].definition.displayText ?? "" } }
    }

    @Test func undoAfterSignOutShowsSignInNotTheOrder() throws {
        let session = try Self.shop()
        try session.dispatch("account/orders/1001")
        try session.perform(.flag("signedIn", "no"))
        #expect(Self.shown(session) == "signin")
        try session.perform(.undo)
        #expect(Self.shown(session) == "signin", "undo reached the order while signed out")
        #expect(session.withHost { $0.presentable("account/orders/:id") } == nil)
    }

    @Test func aTravelToASignedInEntryGoesThroughTheGuards() throws {
        let session = try Self.shop()
        try session.dispatch("account/orders/1001")
        try session.dispatch("home")
        try session.perform(.flag("signedIn", "no"))
        try session.perform(.travel(0))
        #expect(Self.shown(session) == "signin")
        // Signed in again, the same travel shows the order.
        try session.perform(.flag("signedIn", "yes"))
        try session.perform(.travel(0))
        #expect(Self.shown(session) == "account/orders/:id")
    }
}

/// The change says why screens went that nobody asked to leave.
@Suite struct RefusalReasonTests {
    @Test func aFlagChangeSaysWhichKeptScreensItsGuardRefused() throws {
        let session = LiveSession(
            host: try RouteScriptHost(contentsOf: repositoryRoot + "/examples/recipes/signin-continue.lua"))
        try session.perform(.flag("signedIn", "yes"))
        try session.dispatch("account/orders/7")
        try session.dispatch("home")
        guard case .flag(_, _, let change?, _) = try session.perform(.flag("signedIn", "no")) else {
            Issue.record("no change")
            return
        }
        #expect(change.outcome.reasons == ["guard refused account, account/orders/:id after flag signedIn"])
        #expect(change.text(.plain).contains("  guard refused account, account/orders/:id after flag signedIn"))
        #expect(change.json.contains(#""reasons":["guard refused account, account/orders/:id after flag signedIn"]"#))
    }
}
