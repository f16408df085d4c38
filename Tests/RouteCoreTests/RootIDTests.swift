import Testing

@testable import RouteCore

/// The root container's default id is `root` (it was named after its first endpoint,
/// `junction:feed`); strings an older version saved under that name still restore whole.
@Suite struct RootIDTests {
    static func tree() throws -> RouteTree {
        try RouteTree(
            root: .junction([
                .stack([.endpoint("feed", children: [.endpoint("./:post")])]),
                .stack([.endpoint("inbox", children: [.endpoint("./:thread")])]),
            ]))
    }

    @Test func theRootContainerIsNamedRootAndTitledSo() throws {
        let tree = try Self.tree()
        #expect(tree.root.id == "root")
        #expect(tree.root.title == "root")
        #expect(
            tree.nodes.map(\.id) == [
                "root", "stack:feed", "feed", "feed/:post", "stack:inbox", "inbox", "inbox/:thread",
            ])
        #expect(tree.legacyRootID == "junction:feed")
    }

    @Test func aDeclaredIDOrAnEndpointRootKeepsItsOwn() throws {
        let declared = try RouteTree(root: .junction([.endpoint("a")], id: "tabs"))
        #expect(declared.root.id == "tabs")
        #expect(declared.legacyRootID == nil)
        let endpoint = try RouteTree(root: .endpoint("home"))
        #expect(endpoint.root.id == "home")
        #expect(endpoint.legacyRootID == nil)
        // Another node already named `root`: the root keeps the older default.
        let taken = try RouteTree(root: .stack([.endpoint("a", id: "root")]))
        #expect(taken.nodes.map(\.id) == ["stack:root", "root"])
        #expect(taken.legacyRootID == nil)
    }

    /// A string saved when the root was `junction:feed`: the request shown and the other
    /// tab's stack both come back (the kept stack would be lost if the root were not
    /// recognised, as the saved presentation would not rebase).
    @Test func aStringSavedUnderTheOldRootIDRestoresWhole() throws {
        let original = Router(tree: try Self.tree(), presenter: HeadlessPresenter())
        try original.dispatch("inbox/9")
        try original.dispatch("feed/3")
        let saved = original.state.restorationString
        #expect(saved.contains(#"["j","root","#))
        let older = saved.replacing(#"["j","root","#, with: #"["j","junction:feed","#)

        let fresh = Router(tree: try Self.tree(), presenter: HeadlessPresenter())
        let warning = try fresh.restore(restoring: older)
        #expect(warning == nil)
        #expect(fresh.state.presented == original.state.presented)
        #expect(fresh.rootPresentable?.rendered() == original.rootPresentable?.rendered())
        // The inbox tab still holds its thread.
        guard case .junction(_, _, let options)? = fresh.state.presented, case .stack(_, let items) = options[1] else {
            Issue.record("not a junction of stacks: \(String(describing: fresh.state.presented))")
            return
        }
        #expect(items.map(\.node.rawValue) == ["inbox", "inbox/:thread"])
    }

    /// An unknown root id is not taken for the root: only the tree's own older name is.
    @Test func anotherRootIDDoesNotRestoreTheKeptState() throws {
        let original = Router(tree: try Self.tree(), presenter: HeadlessPresenter())
        try original.dispatch("inbox/9")
        try original.dispatch("feed/3")
        let other = original.state.restorationString.replacing(#"["j","root","#, with: #"["j","junction:other","#)
        let fresh = Router(tree: try Self.tree(), presenter: HeadlessPresenter())
        _ = try fresh.restore(restoring: other)
        #expect(fresh.state.request?.path == "feed/3")
        #expect(fresh.state.presented != original.state.presented)
    }
}
