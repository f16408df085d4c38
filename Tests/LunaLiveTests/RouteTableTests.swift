import LunaLive
import RouteCore
import Testing

/// A session's route table after a reload reuses the rows the reload kept: whatever was
/// edited, it equals the table made from the new tree alone.
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
        let edits: [(String, Edit)] = [
            ("a title", Edit(bookTitle: "A book")),
            ("a container's title", Edit(tabTitle: "Library")),
            ("a container's id (every chain below it)", Edit(tabID: "library")),
            ("a route's name", Edit(bookName: "volume")),
            ("a route added (ranks move)", Edit(extra: true)),
            ("tabs reordered", Edit(reordered: true)),
        ]
        for (what, edit) in edits {
            let before = try Self.tree(Edit())
            let kept = RouteTable(before)
            let after = try Self.tree(edit, reusing: before)
            let reused = RouteTable(after, reusing: kept)
            #expect(reused.rows == RouteTable(after).rows, "\(what)")
            #expect(RouteTable(after, reusing: reused).rows == reused.rows, "\(what), the same tree again")
        }
        // The edited row shows the edit; the others are as they were.
        let before = try Self.tree(Edit())
        let table = RouteTable(before)
        let after = RouteTable(try Self.tree(Edit(bookTitle: "A book"), reusing: before), reusing: table)
        #expect(after.rows.map(\.title).contains("A book"))
        #expect(after.rows.first { $0.id == "list" }?.chain == ["tabs", "books", "list"])
    }
}
