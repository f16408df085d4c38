import Foundation
import LunaLive
import LunaTestSupport
import RouteCore
import RouteScript
import Testing

/// A session's route table after a reload reuses the rows the reload's change set says nothing
/// they show changed for: whatever was edited, it equals the table made from the new tree
/// alone, and it makes only the rows the edit reaches.
@Suite struct RouteTableTests {
    struct Edit {
        var tabTitle = "Books"
        var tabID = "books"
        var bookTitle = "Book"
        var bookName: String? = "book"
        var extra = false
        var reordered = false
    }

    static func tree(_ edit: Edit, reusing previous: RouteTree? = nil) throws -> RouteTree {
        var books: [NodeSpec] = [
            .endpoint("books", id: "list", title: "All"),
            .endpoint(
                "books/:id", id: "book", title: edit.bookTitle, name: edit.bookName,
                children: [.endpoint("./reviews", id: "reviews")]),
        ]
        if edit.extra { books.insert(.endpoint("books/new", id: "new"), at: 1) }
        var tabs: [NodeSpec] = [
            .stack(books, id: edit.tabID, title: edit.tabTitle),
            .stack([.endpoint("settings/:_", id: "settings"), .endpoint("...", id: "missing")], id: "more"),
        ]
        if edit.reordered { tabs.reverse() }
        return try RouteTree(root: .junction(tabs, id: "tabs"), reusing: previous)
    }

    @Test func aReloadsTableEqualsTheTableMadeAlone() throws {
        let edits: [(String, Edit, made: Int)] = [
            ("a title", Edit(bookTitle: "A book"), 1),
            ("a container's title", Edit(tabTitle: "Library"), 0),
            ("a container's id (every chain below it)", Edit(tabID: "library"), 3),
            ("a route's name", Edit(bookName: "volume"), 1),
            ("a route added (ranks move)", Edit(extra: true), 1),
            ("tabs reordered", Edit(reordered: true), 0),
        ]
        for (what, edit, made) in edits {
            for reusing in [true, false] {
                // With the tree's parts reused or made anew (`--full-reload`): the change set
                // compares values, not objects.
                let before = try Self.tree(Edit())
                let kept = RouteTable(before)
                let after = try Self.tree(edit, reusing: reusing ? before : nil)
                let reused = RouteTable(after, reusing: kept, change: TreeChange(from: before, to: after))
                #expect(reused.rows == RouteTable(after).rows, "\(what)")
                #expect(reused.made == made, "\(what): \(reused.made) rows made")
                #expect(RouteTable(after, reusing: reused).rows == reused.rows, "\(what), the same tree again")
                // Without one given, the change set the tree's builder worked out (a tree built
                // from nothing has none: every row is made again).
                #expect(RouteTable(after, reusing: kept).made == (reusing ? made : after.endpoints.count))
            }
        }
        // The edited row shows the edit; the others are as they were.
        let before = try Self.tree(Edit())
        let table = RouteTable(before)
        let edited = try Self.tree(Edit(bookTitle: "A book"), reusing: before)
        let after = RouteTable(edited, reusing: table, change: TreeChange(from: before, to: edited))
        #expect(after.rows.map(\.title).contains("A book"))
        #expect(after.rows.first { $0.id == "list" }?.chain == ["tabs", "books", "list"])
    }
}

/// A session's snapshot after a reload carries the route table with what its change set made,
/// so a page holding the previous table is sent only those rows.
@Suite struct RouteTableBasisTests {
    @Test func aReloadsTableSaysWhatItMade() throws {
        let folder = ScriptFolder()
        let script = folder.write(
            "app.lua",
            "return stack { endpoint { 'home', title = 'Home', children = { endpoint { 'a' }, endpoint { 'b' } } } }")
        let session = LiveSession(host: try RouteScriptHost(contentsOf: script))
        try session.dispatch("home")
        guard case .snapshot(let first) = try session.perform(.snapshot(routes: true)) else { return }
        let before = try #require(first.routeTable)
        #expect(before.basis == nil, "the first table: every row made")
        _ = folder.write(
            "app.lua",
            "return stack { endpoint { 'home', title = 'Start', children = { endpoint { 'a' }, endpoint { 'b' } } } }")
        try session.perform(.reload)
        guard case .snapshot(let second) = try session.perform(.snapshot(routes: true)) else { return }
        let basis = try #require(second.routeTable?.basis)
        #expect(basis.tree == ObjectIdentifier(before.tree))
        #expect(basis.made.map { second.routes?[$0].id } == ["home"], "the retitled row only")
    }
}
