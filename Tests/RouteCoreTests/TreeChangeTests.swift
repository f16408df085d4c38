import Testing

@testable import RouteCore

/// What a reload changed, worked out once (``TreeChange``): what the summary lists and what the
/// lint decides from it — the same findings, a few routes again, or the whole tree.
@Suite struct TreeChangeTests {
    static func tree(_ root: NodeSpec) throws -> RouteTree { try RouteTree(root: root) }

    static let base = NodeSpec.stack([
        .endpoint("home", title: "Home", children: [.endpoint("books/:id", id: "book", title: "Book")]),
        .endpoint("about", title: "About"),
    ])

    func differences(_ change: TreeChange, _ tree: RouteTree, _ id: String) -> TreeChange.Differences {
        change.changed.first { tree.nodes[$0.node].id == id }?.differences ?? []
    }

    @Test func aTitleEditChangesNothingTheLintReads() throws {
        let old = try Self.tree(Self.base)
        let new = try Self.tree(
            .stack([
                .endpoint("home", title: "Start", children: [.endpoint("books/:id", id: "book", title: "Book")]),
                .endpoint("about", title: "About"),
            ]))
        let change = TreeChange(from: old, to: new)
        #expect(differences(change, new, "home") == .title)
        #expect(change.summary(old: old, new: new).changed == ["home"])
        #expect(change.sameLintInputs && change.sameShape && change.definitionsChanged.isEmpty)
        #expect(Lint(tree: new).report(previous: Lint(tree: old).report(), change: change).wasIncremental == false)
    }

    @Test func aPatternEditIsOneDefinitionPlaceByPlace() throws {
        let old = try Self.tree(Self.base)
        // `book` keeps its id; `about`'s default id is its pattern, so it is removed and added.
        let new = try Self.tree(
            .stack([
                .endpoint("home", title: "Home", children: [.endpoint("books/:key", id: "book", title: "Book")]),
                .endpoint("info", title: "About"),
            ]))
        let change = TreeChange(from: old, to: new)
        #expect(differences(change, new, "book").isSuperset(of: [.routeText, .definition]))
        let summary = change.summary(old: old, new: new)
        #expect(summary.added == ["info"] && summary.removed == ["about"] && summary.changed == ["book"])
        #expect(!change.sameLintInputs)
        #expect(change.sameShape, "the same nodes in the same places")
        #expect(change.definitionsChanged == [1, 2])
        let started = Lint(tree: new).report(previous: Lint(tree: old).report(), change: change)
        #expect(started.wasIncremental && started.findings == Lint(tree: new).report().findings)
    }

    @Test func placesParentsAndGuards() throws {
        let old = try Self.tree(Self.base)
        // `about` moves under home: another parent, another place, another shape.
        let moved = try Self.tree(
            .stack([
                .endpoint(
                    "home", title: "Home",
                    children: [.endpoint("books/:id", id: "book", title: "Book"), .endpoint("about", title: "About")])
            ]))
        var change = TreeChange(from: old, to: moved)
        #expect(differences(change, moved, "about").isSuperset(of: [.parent, .place]))
        #expect(!change.sameShape && change.summary(old: old, new: moved).changed == ["about"])
        // A line moved: its place only — not a change the summary lists, but one the lint reads.
        var spec = Self.base
        spec.location = SourceLocation(file: "app.lua", line: 2)
        let relined = try Self.tree(spec)
        change = TreeChange(from: old, to: relined)
        #expect(change.summary(old: old, new: relined).changed.isEmpty && !change.sameLintInputs)
        // A guard's fallback: its node changed, not every screen under it.
        var guarded = Self.base
        guarded.guardSpec = GuardSpec(enabled: { _ in true }, fallback: "about")
        let withGuard = try Self.tree(guarded)
        var fallback = Self.base
        fallback.guardSpec = GuardSpec(enabled: { _ in true }, fallback: "home")
        change = TreeChange(from: withGuard, to: try Self.tree(fallback))
        #expect(change.changed.count == 1 && change.changed[0].differences == .guards)
        #expect(change.summary(old: withGuard, new: try Self.tree(fallback)).changed == [withGuard.nodes[0].id])
        #expect(TreeChange(from: withGuard, to: withGuard).changed.isEmpty, "a tree against itself")
    }
}
