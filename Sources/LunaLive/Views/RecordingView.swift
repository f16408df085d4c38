import RouteCore
import RouteScript

/// `save-test NAME`: the actions since the start (or the last `reset`) as a test file's text,
/// with the tree on screen as its golden file.
package struct RecordingView: Sendable {
    package var name: String
    package var script: String
    package var source: String
    package var tree: String

    package init(name: String, script: String, source: String, tree: String) {
        self.name = name
        self.script = script
        self.source = source
        self.tree = tree
    }
}
