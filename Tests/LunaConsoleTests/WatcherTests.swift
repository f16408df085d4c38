import Foundation
import LunaConsole
import LunaTestSupport
import Testing

@testable import LunaLive

/// Every way an editor saves gives exactly one settled change. The kernel queues inotify
/// events when each file operation returns, so the tests read them right away and move time
/// forward by passing it in: nothing sleeps.
@Suite struct WatcherTests {
    enum Kind: String, CaseIterable, Sendable { case inotify, polling }

    static func watcher(_ kind: Kind) -> any FileWatcher {
        switch kind {
        case .inotify:
            #if os(Linux)
                return InotifyWatcher()!
            #else
                return PollingWatcher()
            #endif
        case .polling: return PollingWatcher()
        }
    }

    typealias Save = EditorSave

    static func save(_ style: Save, _ path: String, _ text: String) throws { try style.save(text, to: path) }

    /// A save written in two parts: the first part stops mid-chunk, so its load fails and the
    /// watcher, asked, waits for the rest (reporting the save again) instead of letting the
    /// failure show; once whole it is reported and loads. A save that stays broken fails
    /// after the wait (2 s). A save that loads is never parsed by the watcher.
    @Test(arguments: Kind.allCases)
    func aSaveWrittenInTwoPartsIsReportedOnceWhole(kind: Kind) throws {
        let folder = ScriptFolder()
        let script = folder.write("main.lua", "return endpoint { 'a' }\n")
        let watcher = Self.watcher(kind)
        /// What a consumer does with a report: reload (the load fails when the script stops
        /// mid-chunk), and on failure ask whether to wait for the rest. `.modified` when the
        /// save loaded or its failure stands; nil when nothing is to be shown yet.
        func shown(at now: ContinuousClock.Instant) -> FileChange? {
            guard let change = watcher.settled(now: now) else { return nil }
            let loads = !Settler.endsMidChunk(script)
            if change == .modified, !loads, watcher.waitForRest(now: now) { return nil }
            return change
        }
        let start = ContinuousClock.now
        watcher.watch([script])
        watcher.collect(now: start)
        try Self.save(.truncateThenWrite, script, "return stack { endpoint { 'a' },\n")
        let first = start + .seconds(1)
        watcher.collect(now: first)
        #expect(shown(at: first + .milliseconds(100)) == nil, "the first part waits")
        #expect(shown(at: first + .milliseconds(500)) == nil, "reported again, and waits again")
        try Self.save(.truncateThenWrite, script, "return stack { endpoint { 'a' }, endpoint { 'b' } }\n")
        let second = first + .milliseconds(700)
        watcher.collect(now: second)
        #expect(shown(at: second + .milliseconds(100)) == .modified)
        #expect(shown(at: second + .milliseconds(200)) == nil, "reported once")
        // A whole save's failure stands (nothing to wait for).
        #expect(watcher.waitForRest(now: second + .milliseconds(300)) == false)
        // A save that stays broken is reported after the wait.
        try Self.save(.truncateThenWrite, script, "return stack {\n")
        let broken = second + .seconds(5)
        watcher.collect(now: broken)
        #expect(shown(at: broken + .milliseconds(100)) == nil)
        #expect(shown(at: broken + .milliseconds(2_200)) == .modified)
    }

    /// After a reload the watcher is handed the script's files again; a save that lands just
    /// before that must still count (a second quick save in an editor).
    @Test(arguments: Kind.allCases)
    func aSaveJustBeforeTheFilesAreRenewedIsNotLost(kind: Kind) throws {
        let folder = ScriptFolder()
        let script = folder.write("main.lua", "return endpoint { 'a' }\n")
        let watcher = Self.watcher(kind)
        let start = ContinuousClock.now
        watcher.watch([script])
        watcher.collect(now: start)
        try Self.save(.inPlace, script, "return endpoint { 'renewed' }\n")
        watcher.watch([script])
        let later = start + .seconds(10)
        watcher.collect(now: later)
        #expect(watcher.settled(now: later + .seconds(1)) == .modified)
    }

    @Test(arguments: Kind.allCases, Save.allCases)
    func eachSaveStyleGivesExactlyOneChange(kind: Kind, style: Save) throws {
        let folder = ScriptFolder()
        let script = folder.write("main.lua", "return endpoint { 'a' }\n")
        let watcher = Self.watcher(kind)
        let start = ContinuousClock.now
        watcher.watch([script])
        watcher.collect(now: start)
        #expect(watcher.settled(now: start + .seconds(5)) == nil, "nothing changed yet")
        try Self.save(style, script, "return endpoint { 'b' }    \n")
        let t0 = start + .seconds(10)
        watcher.collect(now: t0)
        if watcher.descriptor != nil {
            // inotify sees the save end (closed after writing, or renamed into place): reported
            // at once, with no settle interval.
            #expect(watcher.nextCheck(now: t0) == t0, "ask at once")
            #expect(watcher.settled(now: t0) == .modified)
        } else {
            // Stat polling cannot see a save end: it waits for the settle interval.
            #expect(watcher.settled(now: t0 + .milliseconds(10)) == nil, "not settled yet")
            #expect(watcher.nextCheck(now: t0) != nil)
            #expect(watcher.settled(now: t0 + .seconds(1)) == .modified)
        }
        watcher.collect(now: t0 + .seconds(2))
        #expect(watcher.settled(now: t0 + .seconds(3)) == nil, "exactly one change")
    }

    /// A script or a module that is a symbolic link to a file in a subfolder: a save through
    /// the link (it writes the target) and a save at the target (in place or renamed into
    /// place) each give one change; the link re-pointed does too.
    @Test(arguments: Kind.allCases, [Save.inPlace, .tempThenRename, .vimBackupRename])
    func aLinkedScriptIsWatchedThroughTheLinkAndAtItsTarget(kind: Kind, style: Save) throws {
        let folder = ScriptFolder()
        let target = folder.write("sub/real.lua", "return endpoint { 'a' }\n")
        let module = folder.write("sub/deeper/mod.lua", "return 1\n")
        let script = folder.path + "/main.lua"
        let linkedModule = folder.path + "/mod.lua"
        #expect(symlink("sub/real.lua", script) == 0)
        #expect(symlink(module, linkedModule) == 0)
        let watcher = Self.watcher(kind)
        var now = ContinuousClock.now
        watcher.watch([script, linkedModule])
        watcher.collect(now: now)
        func expectOneChange(_ what: String) {
            now += .seconds(10)
            watcher.collect(now: now)
            #expect(watcher.settled(now: now + .seconds(1)) == .modified, "\(what)")
            watcher.collect(now: now + .seconds(2))
            #expect(watcher.settled(now: now + .seconds(3)) == nil, "\(what): exactly one change")
        }
        // Through the link: writing the path opens the target.
        try Self.save(.inPlace, script, "return endpoint { 'b' }   \n")
        expectOneChange("through the link")
        try Self.save(style, target, "return endpoint { 'c' }    \n")
        expectOneChange("at the target, \(style)")
        try Self.save(style, module, "return 2     \n")
        expectOneChange("a linked module at its target, \(style)")
        // The link pointed elsewhere.
        let other = folder.write("sub/other.lua", "return endpoint { 'other' }\n")
        try FileManager.default.removeItem(atPath: script)
        #expect(symlink(other, script) == 0)
        expectOneChange("re-pointed")
    }

    /// The steps of one save seen one at a time, as a fast watch loop sees them: the file
    /// closed empty (truncated first), then written and closed: one report, at the second
    /// close; a mode change after it is not another save.
    @Test func aSaveSeenStepByStepIsReportedOnceAtItsEnd() throws {
        let watcher = Self.watcher(.inotify)
        guard watcher.descriptor != nil else { return }  // inotify only
        let folder = ScriptFolder()
        let script = folder.write("main.lua", "return endpoint { 'a' }\n")
        let start = ContinuousClock.now
        watcher.watch([script])
        let truncate = try FileHandle(forUpdating: URL(fileURLWithPath: script))
        try truncate.truncate(atOffset: 0)
        try truncate.close()
        watcher.collect(now: start)
        #expect(watcher.settled(now: start) == nil, "closed empty: the rest is coming")
        let write = try FileHandle(forWritingTo: URL(fileURLWithPath: script))
        try write.write(contentsOf: Data("return endpoint { 'b' }\n".utf8))
        try write.close()
        let written = start + .milliseconds(30)
        watcher.collect(now: written)
        #expect(watcher.settled(now: written) == .modified, "at once, when the writer closes")
        chmod(script, 0o600)
        watcher.collect(now: written + .milliseconds(10))
        #expect(watcher.settled(now: written + .seconds(1)) == nil, "a mode change is not a save")
    }

    @Test(arguments: Kind.allCases)
    func aDeletedScriptIsReportedAndPickedUpWhenItReturns(kind: Kind) throws {
        let folder = ScriptFolder()
        let script = folder.write("main.lua", "return endpoint { 'a' }\n")
        let watcher = Self.watcher(kind)
        let start = ContinuousClock.now
        watcher.watch([script])
        try FileManager.default.removeItem(atPath: script)
        watcher.collect(now: start)
        #expect(watcher.settled(now: start + .seconds(1)) == .deleted([script]))
        folder.write("main.lua", "return endpoint { 'b' }\n")
        watcher.collect(now: start + .seconds(2))
        #expect(watcher.settled(now: start + .seconds(3)) == .modified)
    }

    @Test(arguments: Kind.allCases)
    func requiredModulesAreWatchedAndOtherFilesIgnored(kind: Kind) throws {
        let folder = ScriptFolder()
        let script = folder.write("main.lua", "return require 'tabs.books'\n")
        let module = folder.write("tabs/books.lua", "return endpoint { 'books' }\n")
        let watcher = Self.watcher(kind)
        let start = ContinuousClock.now
        watcher.watch([script, module])
        folder.write("notes.txt", "unrelated")
        folder.write("tabs/other.lua", "return 1")
        watcher.collect(now: start)
        #expect(watcher.settled(now: start + .seconds(1)) == nil, "unwatched files do not count")
        try Self.save(.tempThenRename, module, "return endpoint { 'books2' }\n")
        watcher.collect(now: start + .seconds(2))
        #expect(watcher.settled(now: start + .seconds(3)) == .modified)
    }
}
