import Foundation
import LunaTestSupport
import Testing

/// The REPL reloads a saved script once, keeps the state, and survives a broken save.
@Suite struct HotReloadTests {
    static let version1 = """
        return stack { title = "Books",
          endpoint { "books", title = "Books", children = { endpoint { "./:id", title = "Book" } } } }
        """
    static let version2 = """
        return stack { title = "Books",
          endpoint { "books", title = "Library", children = { endpoint { "./:id", title = "Book" } } },
          endpoint { "authors" } }
        """

    /// The system's watcher (inotify here, kqueue on a Mac) and the polling one
    /// (`LUNA_WATCHER=poll`), through every way an editor saves.
    enum Watching: String, CaseIterable, Sendable { case native, polling }

    @Test(arguments: EditorSave.allCases, Watching.allCases)
    func aSaveReloadsOnceAndKeepsTheState(style: EditorSave, watching: Watching) throws {
        let folder = ScriptFolder()
        let script = folder.write("live.lua", Self.version1)
        let repl = try LiveProcess(
            ["repl", script, "books/7"], environment: watching == .polling ? ["LUNA_WATCHER": "poll"] : [:])
        defer { repl.finish() }
        #expect(repl.lines { $0.contains("screen books/:id") } != nil)
        try style.save(Self.version2, to: script)
        let reload = try #require(repl.lines { $0.hasPrefix("reloaded in ") })
        #expect(reload.last?.hasSuffix(" ms: 1 added (authors), 0 removed, 1 changed (books)") == true)
        // The reload prints what it did: its plan, then the tree.
        let shown = try #require(repl.lines { $0.contains("screen books/:id") })
        #expect(shown.contains("  plan:") && shown.contains("    update books/:id"))
        #expect(shown.contains { $0.contains("screen books \"Library\"") })
        repl.send("state\ntree\n")
        let after = try #require(repl.lines { $0.contains("screen books/:id") })
        #expect(after.contains("request  books/7"))
        #expect(after.contains { $0.contains("screen books \"Library\"") })
        #expect(!after.contains { $0.hasPrefix("reloaded in ") }, "exactly one reload")
        repl.send("quit\n")
    }

    @Test func aBrokenSaveKeepsTheTreeAndAFixedOneReloads() throws {
        let folder = ScriptFolder()
        let script = folder.write("live.lua", Self.version1)
        let repl = try LiveProcess(["repl", script, "books/7"])
        defer { repl.finish() }
        #expect(repl.lines { $0.contains("screen books/:id") } != nil)
        try EditorSave.tempThenRename.save("return stack { endpoint { 'books' ", to: script)
        let failure = try #require(repl.lines { $0.hasPrefix("reload failed: ") })
        #expect(failure.last == "reload failed: \(script.relativeToWorkingDirectory):1: '}' expected near <eof>")
        repl.send("state\n")
        #expect(repl.lines { $0 == "request  books/7" } != nil)
        try EditorSave.tempThenRename.save(Self.version2, to: script)
        #expect(repl.lines { $0.hasPrefix("reloaded in ") } != nil)
        repl.send("quit\n")
    }

    @Test func aDeletedScriptKeepsRunningUntilItComesBack() throws {
        let folder = ScriptFolder()
        let script = folder.write("live.lua", Self.version1)
        let repl = try LiveProcess(["repl", script, "books"])
        defer { repl.finish() }
        #expect(repl.lines { $0.contains("screen books") } != nil)
        try FileManager.default.removeItem(atPath: script)
        #expect(repl.lines { $0 == "live.lua was deleted; keeping the last tree until it comes back" } != nil)
        folder.write("live.lua", Self.version2)
        #expect(repl.lines { $0.hasPrefix("reloaded in ") } != nil)
        repl.send("quit\n")
    }
}
