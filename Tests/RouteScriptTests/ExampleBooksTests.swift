import RouteCore
import Testing

@testable import RouteScript

@Suite struct ExampleBooksTests {
    @Test func theBooksExampleRuns() throws {
        let host = try RouteScriptHost(contentsOf: example("books.lua"))
        let outcome = try host.dispatch("books/42?title=Dune")
        #expect(outcome.route == "books/:id")
        #expect(outcome.name == "book")
        #expect(host.state.params == ["id": "42"])
        #expect(
            host.tree?.rendered() == """
                switcher root
                └── junction junction:today "Main"
                    ├── stack stack:today "Today"
                    ├── stack stack:books "Books" (selected)
                    │   ├── screen books "Books"
                    │   └── screen books/:id "Dune" id=42 ?title=Dune
                    └── stack stack:profile "Profile"
                """)
        _ = try host.dispatch("onboarding?name=Ann")
        #expect(host.tree?.children.first?.children.first?.attributes["greeting"] == .string("Hello, Ann"))
        // Not found is a screen inside the main section: the tab bar stays.
        _ = try host.dispatch("books/42?title=Dune")
        let missing = try host.dispatch("no/such/page")
        #expect(missing.route == "...")
        #expect(!missing.plan.operations.contains(.unwind(id: "junction:today")))
        #expect(
            host.tree?.rendered() == """
                switcher root
                └── junction junction:today "Main"
                    ├── stack stack:today "Today" (selected)
                    │   ├── screen today "Today"
                    │   └── screen not-found "Not found"
                    ├── stack stack:books "Books"
                    │   ├── screen books "Books"
                    │   └── screen books/:id "Dune" id=42 ?title=Dune
                    └── stack stack:profile "Profile"
                """)
    }

    @Test func theBookTitleFollowsTheBookShown() throws {
        let host = try RouteScriptHost(contentsOf: example("books.lua"))
        _ = try host.dispatch("books/42?title=Dune")
        _ = try host.dispatch("books/7")
        #expect(host.tree?.rendered().contains(#"screen books/:id "Book 7" id=7"#) == true)
    }

    @Test func allNewsIsPushedOnTheTodayTab() throws {
        let host = try RouteScriptHost(contentsOf: example("books.lua"))
        let outcome = try host.dispatch("myapp://today/all_news")
        #expect(outcome.route == "today/all_news")
        #expect(host.tree?.rendered().contains("│   └── screen today/all_news \"All news\"") == true)
    }
}
