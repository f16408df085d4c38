import Testing

@testable import RouteCore

/// One dispatch of the MonarchRouter example and what it must do.
struct Step: CustomTestStringConvertible, Sendable {
    var request: String
    var keep: Bool
    var plan: [String]?
    var error: String?
    var tree: String

    init(_ request: String, keep: Bool, plan: [String]? = nil, error: String? = nil, tree: String) {
        self.request = request
        self.keep = keep
        self.plan = plan
        self.error = error
        self.tree = tree
    }

    var testDescription: String { request + (keep ? " --keep" : "") }
}

@Suite struct MonarchExampleTests {
    static let steps: [Step] = [
        Step(
            "login", keep: false,
            plan: ["create root", "create login", "select root 0 (login)"],
            tree: """
                switcher root
                └── screen login "Login"
                """),
        Step(
            "today", keep: false,
            plan: [
                "create junction:today", "create stack:today", "create today", "create stack:books",
                "create stack:profile", "setStack stack:today [today]",
                "setOptions junction:today [stack:today, stack:books, stack:profile]",
                "select junction:today 0 (stack:today)", "select root 2 (junction:today)", "unwind login",
            ],
            tree: """
                switcher root
                └── junction junction:today "Main"
                    ├── stack stack:today "Today" (selected)
                    │   └── screen today "Today"
                    ├── stack stack:books "Books"
                    └── stack stack:profile "Profile"
                """),
        Step(
            "books", keep: false,
            plan: ["create books", "setStack stack:books [books]", "select junction:today 1 (stack:books)"],
            tree: """
                switcher root
                └── junction junction:today "Main"
                    ├── stack stack:today "Today"
                    │   └── screen today "Today"
                    ├── stack stack:books "Books" (selected)
                    │   └── screen books "Books"
                    └── stack stack:profile "Profile"
                """),
        Step(
            "books/42", keep: false,
            plan: ["create books/:id", "setStack stack:books [books, books/:id]"],
            tree: """
                switcher root
                └── junction junction:today "Main"
                    ├── stack stack:today "Today"
                    │   └── screen today "Today"
                    ├── stack stack:books "Books" (selected)
                    │   ├── screen books "Books"
                    │   └── screen books/:id id=42
                    └── stack stack:profile "Profile"
                """),
        Step(
            "today", keep: false,
            plan: ["select junction:today 0 (stack:today)"],
            tree: """
                switcher root
                └── junction junction:today "Main"
                    ├── stack stack:today "Today" (selected)
                    │   └── screen today "Today"
                    ├── stack stack:books "Books"
                    │   ├── screen books "Books"
                    │   └── screen books/:id id=42
                    └── stack stack:profile "Profile"
                """),
        Step(
            "books", keep: true,
            plan: ["select junction:today 1 (stack:books)"],
            tree: """
                switcher root
                └── junction junction:today "Main"
                    ├── stack stack:today "Today"
                    │   └── screen today "Today"
                    ├── stack stack:books "Books" (selected)
                    │   ├── screen books "Books"
                    │   └── screen books/:id id=42
                    └── stack stack:profile "Profile"
                """),
        Step(
            "books/42?x=1", keep: false,
            plan: ["update books/:id"],
            tree: """
                switcher root
                └── junction junction:today "Main"
                    ├── stack stack:today "Today"
                    │   └── screen today "Today"
                    ├── stack stack:books "Books" (selected)
                    │   ├── screen books "Books"
                    │   └── screen books/:id id=42 ?x=1
                    └── stack stack:profile "Profile"
                """),
        Step(
            "books/42?x=1", keep: false,
            plan: [],
            tree: """
                switcher root
                └── junction junction:today "Main"
                    ├── stack stack:today "Today"
                    │   └── screen today "Today"
                    ├── stack stack:books "Books" (selected)
                    │   ├── screen books "Books"
                    │   └── screen books/:id id=42 ?x=1
                    └── stack stack:profile "Profile"
                """),
        Step(
            "books/43", keep: false,
            plan: ["update books/:id"],
            tree: """
                switcher root
                └── junction junction:today "Main"
                    ├── stack stack:today "Today"
                    │   └── screen today "Today"
                    ├── stack stack:books "Books" (selected)
                    │   ├── screen books "Books"
                    │   └── screen books/:id id=43
                    └── stack stack:profile "Profile"
                """),
        Step(
            "today/story/news/7", keep: false,
            plan: [
                "create today/story/:type/:id", "select junction:today 0 (stack:today)",
                "presentModal today today/story/:type/:id",
            ],
            tree: """
                switcher root
                └── junction junction:today "Main"
                    ├── stack stack:today "Today" (selected)
                    │   └── screen today "Today"
                    │       └── modal screen today/story/:type/:id "Story" id=7 type=news
                    ├── stack stack:books "Books"
                    │   ├── screen books "Books"
                    │   └── screen books/:id id=43
                    └── stack stack:profile "Profile"
                """),
        Step(
            "books", keep: false,
            plan: [
                "dismissModal today today/story/:type/:id", "setStack stack:books [books]",
                "select junction:today 1 (stack:books)", "unwind books/:id", "unwind today/story/:type/:id",
            ],
            tree: """
                switcher root
                └── junction junction:today "Main"
                    ├── stack stack:today "Today"
                    │   └── screen today "Today"
                    ├── stack stack:books "Books" (selected)
                    │   └── screen books "Books"
                    └── stack stack:profile "Profile"
                """),
        Step(
            "profile", keep: false,
            plan: ["create profile", "setStack stack:profile [profile]", "select junction:today 2 (stack:profile)"],
            tree: """
                switcher root
                └── junction junction:today "Main"
                    ├── stack stack:today "Today"
                    │   └── screen today "Today"
                    ├── stack stack:books "Books"
                    │   └── screen books "Books"
                    └── stack stack:profile "Profile" (selected)
                        └── screen profile "Profile"
                """),
        Step(
            "orders/5", keep: false,
            plan: [
                "create junction:orders", "create stack:orders", "create orders", "create orders/:id",
                "create delivery", "setStack stack:orders [orders, orders/:id]",
                "setOptions junction:orders [stack:orders, delivery]", "select junction:orders 0 (stack:orders)",
                "presentModal profile junction:orders",
            ],
            tree: """
                switcher root
                └── junction junction:today "Main"
                    ├── stack stack:today "Today"
                    │   └── screen today "Today"
                    ├── stack stack:books "Books"
                    │   └── screen books "Books"
                    └── stack stack:profile "Profile" (selected)
                        └── screen profile "Profile"
                            └── modal junction junction:orders "Account"
                                ├── stack stack:orders "Orders" (selected)
                                │   ├── screen orders "Orders"
                                │   └── screen orders/:id "Order" id=5
                                └── screen delivery "Delivery"
                """),
        Step(
            "delivery", keep: false,
            plan: ["update delivery", "select junction:orders 1 (delivery)"],
            tree: """
                switcher root
                └── junction junction:today "Main"
                    ├── stack stack:today "Today"
                    │   └── screen today "Today"
                    ├── stack stack:books "Books"
                    │   └── screen books "Books"
                    └── stack stack:profile "Profile" (selected)
                        └── screen profile "Profile"
                            └── modal junction junction:orders "Account"
                                ├── stack stack:orders "Orders"
                                │   ├── screen orders "Orders"
                                │   └── screen orders/:id "Order" id=5
                                └── screen delivery "Delivery" (selected)
                """),
        Step(
            "orders", keep: false,
            plan: ["setStack stack:orders [orders]", "select junction:orders 0 (stack:orders)", "unwind orders/:id"],
            tree: """
                switcher root
                └── junction junction:today "Main"
                    ├── stack stack:today "Today"
                    │   └── screen today "Today"
                    ├── stack stack:books "Books"
                    │   └── screen books "Books"
                    └── stack stack:profile "Profile" (selected)
                        └── screen profile "Profile"
                            └── modal junction junction:orders "Account"
                                ├── stack stack:orders "Orders" (selected)
                                │   └── screen orders "Orders"
                                └── screen delivery "Delivery"
                """),
        Step(
            "login", keep: false,
            plan: [
                "dismissModal profile junction:orders", "create login", "select root 0 (login)",
                "unwind delivery", "unwind orders", "unwind stack:orders", "unwind junction:orders", "unwind profile",
                "unwind stack:profile", "unwind books", "unwind stack:books", "unwind today", "unwind stack:today",
                "unwind junction:today",
            ],
            tree: """
                switcher root
                └── screen login "Login"
                """),
        Step(
            "myapp://today/story/sports/12#top", keep: false,
            plan: [
                "create junction:today", "create stack:today", "create today", "create today/story/:type/:id",
                "create stack:books", "create stack:profile", "setStack stack:today [today]",
                "setOptions junction:today [stack:today, stack:books, stack:profile]",
                "select junction:today 0 (stack:today)", "select root 2 (junction:today)",
                "presentModal today today/story/:type/:id", "unwind login",
            ],
            tree: """
                switcher root
                └── junction junction:today "Main"
                    ├── stack stack:today "Today" (selected)
                    │   └── screen today "Today"
                    │       └── modal screen today/story/:type/:id "Story" id=12 type=sports #top
                    ├── stack stack:books "Books"
                    └── stack stack:profile "Profile"
                """),
        Step(
            "today/story/sports/abc", keep: false,
            error:
                "no route matches 'today/story/sports/abc'; closest: today/story/:type/:id (segment 4: 'abc' does not pass the validator of 'id' ('[0-9]+')); today (segment 2: 'story' is past the end of the pattern); login (segment 1: expected 'login', got 'today')",
            tree: """
                switcher root
                └── junction junction:today "Main"
                    ├── stack stack:today "Today" (selected)
                    │   └── screen today "Today"
                    │       └── modal screen today/story/:type/:id "Story" id=12 type=sports #top
                    ├── stack stack:books "Books"
                    └── stack stack:profile "Profile"
                """),
    ]

    /// The whole example app driven through 18 dispatches, in order: the exact plan of each
    /// and the tree after it. A failed dispatch must leave state and tree untouched.
    @Test func theExampleAppThroughEighteenDispatches() throws {
        let router = Router(tree: try MonarchExample.tree(), presenter: HeadlessPresenter())
        for step in Self.steps {
            let before = router.state
            do {
                let result = try router.dispatch(step.request, options: .init(keepStack: step.keep))
                #expect(result.plan.operations.map(\.text) == step.plan, "\(step.testDescription)")
                #expect(step.error == nil, "\(step.testDescription) should have failed")
            } catch {
                #expect("\(error)" == step.error, "\(step.testDescription)")
                #expect(router.state == before, "a failed dispatch changed the state")
            }
            #expect(router.rootPresentable?.rendered() == step.tree, "\(step.testDescription)")
        }
    }

    @Test func keepStackKeepsTheStateEqualToWhatIsOnScreen() throws {
        let router = Router(tree: try MonarchExample.tree(), presenter: HeadlessPresenter())
        _ = try router.dispatch("books/42")
        _ = try router.dispatch("today")
        _ = try router.dispatch("books", options: .init(keepStack: true))
        #expect(router.state.request?.path == "books/42")
        #expect(router.state.params == ["id": "42"])
        // Without keepStack the option is rebuilt to match the request exactly.
        _ = try router.dispatch("today")
        let result = try router.dispatch("books")
        #expect(
            result.plan.operations.map(\.text) == [
                "setStack stack:books [books]", "select junction:today 1 (stack:books)", "unwind books/:id",
            ])
    }

    @Test func backPopsTheTopStackAndSyncsWithoutReplayingTheUIChange() throws {
        let router = Router(tree: try MonarchExample.tree(), presenter: HeadlessPresenter())
        _ = try router.dispatch("books/42")
        let result = try router.back()
        #expect(result.plan.operations.map(\.text) == ["unwind books/:id"])
        #expect(router.state.request?.path == "books")
        #expect(
            router.rootPresentable?.rendered() == """
                switcher root
                └── junction junction:today "Main"
                    ├── stack stack:today "Today"
                    ├── stack stack:books "Books" (selected)
                    │   └── screen books "Books"
                    └── stack stack:profile "Profile"
                """)
        #expect(throws: RouteError.self) { try router.back() }
        // Going back inside a modal's own stack.
        _ = try router.dispatch("orders/5")
        _ = try router.back()
        #expect(router.state.request?.path == "orders")
    }

    @Test func theTreeRendersAsJSONAndASCII() throws {
        let router = Router(tree: try MonarchExample.tree(), presenter: HeadlessPresenter())
        _ = try router.dispatch("books/42?title=Dune")
        let books = try #require(router.store["stack:books"])
        #expect(
            books.json
                == #"{"attributes":{},"children":[{"attributes":{},"fragment":null,"id":"books","kind":"screen","modal":null,"params":{},"query":{},"route":"books","title":"Books"},{"attributes":{},"fragment":null,"id":"books/:id","kind":"screen","modal":null,"params":{"id":"42"},"query":{"title":"Dune"},"route":"books/:id","title":"books/:id"}],"id":"stack:books","kind":"stack","title":"Books"}"#
        )
        let junction = try #require(router.store["junction:today"])
        #expect(
            junction.json.hasPrefix(#"{"attributes":{},"children":[{"attributes":{},"children":[],"id":"stack:today""#))
        #expect(junction.json.contains(#""selected":1,"title":"Main"}"#))
        #expect(
            books.rendered(ascii: true) == """
                stack stack:books "Books"
                |-- screen books "Books"
                `-- screen books/:id id=42 ?title=Dune
                """)
    }
}
