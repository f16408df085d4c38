import RouteCore
import RouteScript

// The values a session command returns. Each is built under the session's lock from the
// host and the history, holds only values (never the host), and knows its two forms: the
// JSON docs/cli.md documents (`--json`, the page protocol) and the text people read. The
// REPL, the inspector, `luna test` and `save-test` print these; none renders state,
// explain, routes or a plan its own way.

/// How a route's pattern is shown everywhere: its text, and the root as `/`.
package func displayPattern(_ text: String) -> String { Lint.show(text) }

/// Which forms of the presentable tree a view renders: the REPL prints one, a page reads the
/// JSON, `luna test` neither (it reads the tree itself). Rendering is most of a view's cost.
package struct ViewForms: OptionSet, Sendable {
    package let rawValue: Int
    package init(rawValue: Int) { self.rawValue = rawValue }

    package static let json = ViewForms(rawValue: 1)
    package static let text = ViewForms(rawValue: 2)
    package static let both: ViewForms = [.json, .text]
}
