import Testing

@testable import RouteCore

/// The calls the documentation shows compile as written: `try router.dispatch(…)` without
/// `_ =` (the suite builds with warnings as errors, so an unused-result warning fails it).
@Suite struct DocumentedUsageTests {
    @Test func dispatchSyncAndBackNeedNoUnderscore() throws {
        let router = Router(tree: try MonarchExample.tree(), presenter: HeadlessPresenter())
        try router.dispatch("books")
        try router.dispatch("books/42")
        try router.back()
        try router.sync("books/7")
        #expect(router.state.request?.path == "books/7")
    }
}
