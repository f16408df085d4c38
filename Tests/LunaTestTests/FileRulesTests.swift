import Foundation
import LunaLive
import LunaTest
import Testing

/// What a test run may touch: files inside the test's folder (links resolved), regular files
/// only, never written through a link; folders walked once each.
@Suite struct FileRulesTests {
    /// A folder beside the test folder, the "outside" that links point to.
    static func outside() throws -> String {
        let path = repositoryRoot + "/.build/test-scripts/outside-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: repositoryRoot + "/examples/books.lua", toPath: path + "/x.lua")
        return path
    }

    @Test func lunaOpenFollowsTheRuleOfRequire() throws {
        let folder = try TestFolder()
        let outside = try Self.outside()
        defer { try? FileManager.default.removeItem(atPath: outside) }
        try FileManager.default.createSymbolicLink(
            atPath: folder.path + "/linked.lua", withDestinationPath: outside + "/x.lua")
        try FileManager.default.createSymbolicLink(
            atPath: folder.path + "/passwd.lua", withDestinationPath: "/etc/passwd")
        mkfifo(folder.path + "/pipe.lua", 0o644)
        let relativeOutside = "../" + (outside.split(separator: "/").last.map(String.init) ?? "") + "/x.lua"
        for (target, reason) in [
            (relativeOutside, "is outside the folder"),
            ("linked.lua", "is outside the folder"),
            ("passwd.lua", "is outside the folder"),
            ("pipe.lua", "is not a regular file"),
        ] {
            let file = folder.write("open_test.lua", "test('x', function() luna.open('\(target)') end)")
            let result = TestRunner(options: .init()).run(file: file)
            let message = result.cases.first?.message ?? result.loadError ?? ""
            #expect(result.cases.first?.status == .failed, "\(target)")
            #expect(message.contains(reason), "\(target): \(message)")
            #expect(!message.contains("root:"), "no token of the linked file leaks: \(message)")
        }
        // Inside the folder, through a link that stays inside, is fine.
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/alias.lua", withDestinationPath: "books.lua")
        let file = folder.write("ok_test.lua", "test('x', function() luna.open('alias.lua'):go('books') end)")
        #expect(TestRunner(options: .init()).run(file: file).cases.first?.status == .passed)
    }

    @Test func goldenFilesAreNeverWrittenThroughALink() throws {
        let folder = try TestFolder()
        let outside = try Self.outside()
        defer { try? FileManager.default.removeItem(atPath: outside) }
        // A linked snapshot folder: the first run would create files outside.
        try FileManager.default.createDirectory(
            atPath: folder.path + "/__snapshots__", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: folder.path + "/__snapshots__/case_test", withDestinationPath: outside)
        let first = try run("test('t', function() app:go('books') expect_tree(app, 'tree') end)", in: folder)
        #expect(first.cases.first?.status == .failed)
        #expect(first.cases.first?.message?.contains("golden files stay in the project") == true, "\(first)")
        #expect(!FileManager.default.fileExists(atPath: outside + "/tree.tree.txt"))
        // A linked golden file: --update would overwrite its target.
        try FileManager.default.removeItem(atPath: folder.path + "/__snapshots__/case_test")
        try FileManager.default.createDirectory(
            atPath: folder.path + "/__snapshots__/case_test", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: folder.path + "/__snapshots__/case_test/tree.tree.txt", withDestinationPath: outside + "/x.lua")
        let before = try String(contentsOfFile: outside + "/x.lua", encoding: .utf8)
        let update = try run(
            "test('t', function() app:go('books') expect_tree(app, 'tree') end)", update: true, in: folder)
        #expect(update.cases.first?.status == .failed)
        #expect(try String(contentsOfFile: outside + "/x.lua", encoding: .utf8) == before)
    }

    static func recording(_ name: String, _ folder: String) -> RecordingView {
        RecordingView(name: name, script: folder + "/books.lua", source: "-- new\n", tree: "t")
    }

    @Test func saveTestKeepsAnExistingTestAndWritesNoLink() throws {
        let folder = try TestFolder()
        folder.write("mine_test.lua", "-- my own test\n")
        #expect(throws: (any Error).self) {
            try TestRecorder.save(Self.recording("mine", folder.path))
        }
        #expect(try String(contentsOfFile: folder.path + "/mine_test.lua", encoding: .utf8) == "-- my own test\n")
        _ = try TestRecorder.save(Self.recording("mine", folder.path), force: true)
        #expect(try String(contentsOfFile: folder.path + "/mine_test.lua", encoding: .utf8) == "-- new\n")
        let outside = try Self.outside()
        defer { try? FileManager.default.removeItem(atPath: outside) }
        try FileManager.default.createSymbolicLink(
            atPath: folder.path + "/link_test.lua", withDestinationPath: outside + "/x.lua")
        #expect(throws: (any Error).self) {
            try TestRecorder.save(Self.recording("link", folder.path), force: true)
        }
        #expect(try String(contentsOfFile: outside + "/x.lua", encoding: .utf8).hasPrefix("-- new") == false)
    }

    @Test func discoveryWalksEachRealFolderOnceAndOnlyRegularFiles() throws {
        let folder = try TestFolder()
        folder.write("a_test.lua", "test('a', function() end)")
        try FileManager.default.createDirectory(atPath: folder.path + "/inner", withIntermediateDirectories: true)
        folder.write("inner/b_test.lua", "test('b', function() end)")
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/inner/up", withDestinationPath: "..")
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/self1", withDestinationPath: ".")
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/self2", withDestinationPath: ".")
        mkfifo(folder.path + "/f_test.lua", 0o644)
        let found = TestRunner.discover([folder.path])
        #expect(
            found.map { $0.split(separator: "/").last.map(String.init) ?? "" }.sorted() == ["a_test.lua", "b_test.lua"])
    }

    @Test func oversizedAndSpecialFilesAreRefusedUpFront() throws {
        let folder = try TestFolder()
        let big = folder.path + "/big_test.lua"
        _ = FileManager.default.createFile(atPath: big, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: big))
        try handle.truncate(atOffset: 1 << 30)  // sparse: 1 GiB that takes no disk
        try handle.close()
        let result = TestRunner(options: .init()).run(file: big)
        #expect(
            result.loadError?.contains("is 1073741824 bytes (the limit is 16 MiB)") == true, "\(result.loadError ?? "")"
        )
        mkfifo(folder.path + "/p_test.lua", 0o644)
        let pipe = TestRunner(options: .init()).run(file: folder.path + "/p_test.lua")
        #expect(pipe.loadError?.contains("not a regular file") == true, "\(pipe.loadError ?? "")")
    }
}
