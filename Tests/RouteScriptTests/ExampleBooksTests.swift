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
                switcher switcher:login
                └── junction junction:today "Main"
                    ├── stack stack:today "Today"
                    ├── stack stack:books "Books" (selected)
                    │   ├── screen books "Books"
                    │   └── screen books/:id "Dune" id=42 ?title=Dune
                    └── stack stack:profile "Profile"
                """)
        _ = try host.dispatch("onboarding?name=Ann")
        #expect(host.tree?.children.first?.children.first?.attributes["greeting"] == .string("Hello, Ann"))
        _ = try host.dispatch("no/such/page")
        #expect(host.tree?.children.first?.id == "...")
    }
}
