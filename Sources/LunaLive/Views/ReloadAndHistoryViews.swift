import RouteCore
import RouteScript

/// What a reload (or a device change) did.
package struct ReloadView: Sendable {
    package var summary: ReloadSummary
    package var tree: TreeView
    /// The script's path, to show the lint's locations as the user gave the script.
    package var script: String?

    package init(summary: ReloadSummary, tree: TreeView, script: String?) {
        self.summary = summary
        self.tree = tree
        self.script = script
    }

    package var json: String { "{\"reload\":" + object + "}" }

    /// What the reload did: its time, the routes added, removed and changed, its warning,
    /// plan and lint.
    package var object: String {
        let milliseconds = LiveSession.milliseconds(summary.duration)
        return JSONWriter.ordered([
            ("ms", "\((milliseconds * 100).rounded() / 100)"),
            ("added", JSONWriter.array(summary.added.map(JSONWriter.quoted))),
            ("removed", JSONWriter.array(summary.removed.map(JSONWriter.quoted))),
            ("changed", JSONWriter.array(summary.changed.map(JSONWriter.quoted))),
            ("warning", summary.warning.map(JSONWriter.quoted) ?? "null"), ("plan", summary.plan.json),
            ("lint", JSONWriter.array(summary.lint.map(JSONWriter.quoted))),
        ])
    }

    /// The summary for a page: the line and lists, without the plan (the event carries it).
    package var eventJSON: String {
        JSONWriter.object([
            "line": JSONWriter.quoted(summary.line), "added": JSONWriter.array(summary.added.map(JSONWriter.quoted)),
            "removed": JSONWriter.array(summary.removed.map(JSONWriter.quoted)),
            "changed": JSONWriter.array(summary.changed.map(JSONWriter.quoted)),
            "warning": summary.warning.map(JSONWriter.quoted) ?? "null",
            "lint": JSONWriter.array(summary.lint.map(JSONWriter.quoted)),
        ])
    }

    package func lines(_ style: Style) -> [String] {
        var lines = [style.green(summary.line)]
        if let warning = summary.warning { lines.append(style.yellow("warning: " + warning)) }
        if !summary.plan.isEmpty {
            lines.append("  plan:")
            lines += PlanView.lines(summary.plan, style: style)
            if let text = tree.text { lines.append(text) }
        }
        for finding in summary.lint {
            lines.append(style.yellow(script.map { ScriptPaths.relocate(finding, script: $0) } ?? finding))
        }
        return lines
    }
}

/// The history kept, oldest first, and the entry on screen.
package struct HistoryView: Sendable {
    package var entries: [HistoryEntry]
    package var current: Int?

    package var json: String { JSONWriter.ordered(members) }

    package var members: [(String, String)] {
        [("history", JSONWriter.array(entries.map(\.json))), ("current", current.map(String.init) ?? "null")]
    }

    package func lines(_ style: Style) -> [String] {
        guard !entries.isEmpty else { return [style.dim("(no history yet)")] }
        return entries.map { ($0.index == current ? "* " : "  ") + $0.line }
    }
}
