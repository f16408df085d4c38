import Testing

@testable import RouteCore

/// A state saved as a restoration string comes back as the same state, through the
/// presenter, on the same tree; on a changed tree it falls back to what survives, and says so.
@Suite struct StateRestorationTests {
    static let journeys: [[String]] = [
        ["today"],
        ["today/story/news/7?ref=push#top"],
        ["books/42?title=Dune", "today"],
        ["books/42?title=Dune", "books/7", "today/story/a/1", "books"],
        ["orders/5", "delivery"],
        ["orders/5?sort=date", "books/3", "profile"],
        ["login"],
        ["onboarding"],
        ["book|{\"id\":12}"],
    ]

    @Test(arguments: 0..<journeys.count)
    func aSavedStateRestoresOnAFreshRouterAsItWas(journey: Int) throws {
        let original = Router(tree: try MonarchExample.tree(), presenter: HeadlessPresenter())
        for request in Self.journeys[journey] { try original.dispatch(request) }
        let saved = original.state.restorationString

        let decoded = try RouterState(restoring: saved)
        #expect(decoded.presented == original.state.presented)
        #expect(decoded.request == original.state.request)
        #expect(decoded.requested == original.state.requested)

        let fresh = Router(tree: try MonarchExample.tree(), presenter: HeadlessPresenter())
        let warning = try fresh.restore(restoring: saved)
        #expect(warning == nil)
        #expect(fresh.state.presented == original.state.presented)
        #expect(fresh.state.route == original.state.route)
        #expect(fresh.rootPresentable?.rendered() == original.rootPresentable?.rendered())
        // The same string again: nothing left to do.
        let again = try fresh.restore(restoring: saved)
        #expect(again == nil)
        #expect(Reducer.plan(from: fresh.state.presented, to: original.state.presented, tree: fresh.tree).isEmpty)
    }

    @Test func aRestoreFromNothingIsABuildUp() throws {
        let original = Router(tree: try MonarchExample.tree(), presenter: HeadlessPresenter())
        try original.dispatch("books/42")
        try original.dispatch("today/story/news/7")
        let fresh = Router(tree: try MonarchExample.tree(), presenter: HeadlessPresenter())
        let target = try fresh.tree.restoredState(original.state.restorationString).state
        let transition = try fresh.restore(target)
        let names = Set(transition.plan.operations.map(\.name))
        #expect(!names.contains("unwind") && !names.contains("dismissModal"))
        #expect(transition.plan.operations.first == .create(id: fresh.tree.root.id))
        #expect(transition.plan.operations.contains(.presentModal(id: "today", modal: "today/story/:type/:id")))
    }

    /// The next launch's tree lost the book detail: the saved `books/42` shows `books`, with a
    /// warning; the other tabs keep what they showed.
    @Test func aStateWhoseRouteIsGoneFallsBackToTheNearestSurvivingOne() throws {
        let original = Router(tree: try MonarchExample.tree(), presenter: HeadlessPresenter())
        try original.dispatch("orders/5")
        try original.dispatch("books/42?title=Dune")
        let saved = original.state.restorationString

        let changed = try RouteTree(
            root: .switcher([
                .endpoint("login", title: "Login"),
                .junction(
                    [
                        .stack([.endpoint("today", title: "Today")], title: "Today"),
                        .stack([.endpoint("books", title: "Books")], title: "Books"),
                        .stack([.endpoint("profile", title: "Profile")], title: "Profile"),
                    ], title: "Main"),
            ]))
        let router = Router(tree: changed, presenter: HeadlessPresenter())
        let warning = try router.restore(restoring: saved)
        #expect(warning == "'books/42' no longer matches; showing 'books'")
        #expect(router.state.request?.original == "books")
        guard case .switcher(_, 1, .junction(_, let selected, let options))? = router.state.presented else {
            Issue.record("not the tab bar: \(String(describing: router.state.presented))")
            return
        }
        #expect(selected == 1)
        // The profile tab kept its visited root; its modal (gone from the tree) is not shown.
        guard case .stack(_, let profile) = options[2], case .screen(_, _?, nil)? = profile.first else {
            Issue.record("the profile tab lost its screen: \(options[2])")
            return
        }
        #expect(profile.map(\.node) == ["profile"])
        #expect(router.rootPresentable?.rendered().contains("Books") == true)

        let nothing = Router(tree: try RouteTree(root: .endpoint("welcome")), presenter: HeadlessPresenter())
        let none = try nothing.restore(restoring: saved)
        #expect(none == "'books/42' no longer matches anything; nothing is shown")
        #expect(nothing.state.presented == nil)
    }

    @Test func aStateOnTheCatchAllMayShowItAgain() throws {
        let tree = try RouteTree(
            root: .stack([.endpoint("home", children: [.endpoint("home/:id")]), .endpoint("...", title: "Not found")]))
        let router = Router(tree: tree, presenter: HeadlessPresenter())
        try router.dispatch("nowhere/at/all")
        let fresh = Router(tree: tree, presenter: HeadlessPresenter())
        #expect(try fresh.restore(restoring: router.state.restorationString) == nil)
        #expect(fresh.state == router.state)
    }

    static let malformed: [(text: String, message: String)] = [
        ("", "the restoration string is not JSON"),
        ("[1]", "the restoration string is not a JSON object"),
        ("{}", "the restoration string has no version (\"v\")"),
        ("{\"v\":3}", "the restoration string has version 3; this Luna reads versions 1 to 2"),
        ("{\"v\":2,\"p\":[\"s\",\"a\",{\"u\":1}]}", "the activation at p has a \"u\" that is not a boolean"),
        ("{\"v\":1,\"r\":7}", "\"r\" is not a string"),
        ("{\"v\":1,\"r\":\"a%zz\"}", "\"r\" is not a request"),
        ("{\"v\":1,\"q\":[]}", "the restoration string's \"q\" is not a string"),
        ("{\"v\":1,\"p\":[\"x\",\"a\"]}", "the presentation at p has an unknown kind 'x' (w, j, k or s)"),
        ("{\"v\":1,\"p\":[\"s\"]}", "the presentation at p is not [kind, id, …]"),
        ("{\"v\":1,\"p\":[\"s\",\"\"]}", "the presentation at p is not [kind, id, …]"),
        ("{\"v\":1,\"p\":[\"j\",\"t\",3,[[\"s\",\"a\"]]]}", "the presentation at p selects option 3 of 1"),
        (
            "{\"v\":1,\"p\":[\"k\",\"s\",[[\"s\",\"a\",{\"p\":{\"id\":4}}]]]}",
            "the activation at p.0 has a non-string \"p\".id"
        ),
        (
            "{\"v\":1,\"p\":[\"w\",\"s\",-1,[\"s\",\"a\"]]}",
            "the presentation at p is not [\"w\", id, section, content]"
        ),
        ("{\"v\":1,\"p\":[\"k\",\"s\",{}]}", "the presentation at p has no list of children"),
    ]

    @Test(arguments: 0..<malformed.count)
    func aMalformedStringIsAClearInvalidStateError(index: Int) throws {
        let (text, message) = Self.malformed[index]
        let router = Router(tree: try MonarchExample.tree(), presenter: HeadlessPresenter())
        try router.dispatch("books/42")
        let before = router.state
        do {
            try router.restore(restoring: text)
            Issue.record("'\(text)' was restored")
        } catch let error as RouteError {
            #expect(error.kind == .invalidState)
            #expect(error.message.hasPrefix(message) || error.message.contains(message), "\(error.message)")
        }
        #expect(router.state == before)
    }

    /// Deep nesting (a hostile string) is refused by the JSON reader's depth limit, not by
    /// the stack.
    @Test func aDeeplyNestedStringIsRefused() throws {
        let deep =
            "{\"v\":1,\"p\":" + String(repeating: "[\"s\",\"a\",null,", count: 10_000) + "[\"s\",\"a\"]"
            + String(repeating: "]", count: 10_000) + "}"
        #expect(throws: RouteError.self) { _ = try RouterState(restoring: deep) }
    }

    /// Every truncation and every one-byte change of a real string either restores or throws.
    @Test func mangledStringsNeverTrap() throws {
        let original = Router(tree: try MonarchExample.tree(), presenter: HeadlessPresenter())
        try original.dispatch("orders/5?sort=date")
        try original.dispatch("today/story/news/7#top")
        let saved = Array(original.state.restorationString.utf8)
        let replacements = Array("[]{}\",:0 9sjkwv".utf8)
        var restored = 0
        for cut in 0..<saved.count {
            let tree = try MonarchExample.tree()
            if (try? tree.restoredState(String(decoding: saved[..<cut], as: UTF8.self))) != nil { restored += 1 }
        }
        for position in saved.indices {
            for byte in replacements {
                var mangled = saved
                mangled[position] = byte
                if (try? Router(tree: try MonarchExample.tree(), presenter: HeadlessPresenter())
                    .restore(restoring: String(decoding: mangled, as: UTF8.self))) != nil
                {
                    restored += 1
                }
            }
        }
        #expect(restored > 0)
    }
}
