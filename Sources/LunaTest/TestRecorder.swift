import LunaLive
import RouteScript

/// `save-test NAME` in the REPL writes the session's recording (``RecordingView``, the test
/// file's text and the tree on screen) beside the script, with the tree as its golden file.
package enum TestRecorder {
    /// Writes `NAME_test.lua` beside the script and its golden tree; returns the test file's
    /// path. An existing test file is kept unless `force` is set; nothing is written through a
    /// link or outside the script's folder.
    package static func save(_ recording: RecordingView, force: Bool = false) throws -> String {
        let (name, scriptPath, source, tree) = (recording.name, recording.script, recording.source, recording.tree)
        let folder = Snapshots.folderOf(scriptPath)
        let file = folder + "/" + name + "_test.lua"
        if !force, Snapshots.exists(file) {
            throw TestError("'\(file)' exists (save-test \(name) --force replaces it)")
        }
        try Snapshots.write(source, to: file, folder: folder, inside: folder)
        let snapshots = folder + "/__snapshots__/" + name + "_test"
        try Snapshots.write(
            tree.hasSuffix("\n") ? tree : tree + "\n", to: snapshots + "/" + name + ".tree.txt", folder: snapshots,
            inside: folder)
        return file
    }
}
