import RouteCore
import RouteScript

/// The presentable tree on screen, in the forms asked for (nil: nothing is shown, or that
/// form was not asked for).
package struct TreeView: Sendable, Equatable {
    /// `HeadlessPresentable.json`, or nil.
    package var json: String?
    /// `HeadlessPresentable.rendered()`, or nil.
    package var text: String?

    /// Nothing shown.
    package static let empty = TreeView(nil)

    package init(_ tree: HeadlessPresentable?, forms: ViewForms = .both) {
        json = forms.contains(.json) ? tree?.json : nil
        text = forms.contains(.text) ? tree?.rendered() : nil
    }

    /// `tree`: the JSON or `null`; the drawing or a dim note.
    package func lines(json asJSON: Bool, style: Style) -> [String] {
        if asJSON { return [json ?? "null"] }
        return [text ?? style.dim("(nothing dispatched yet)")]
    }
}

/// A change that matched a route (dispatch, sync, back, a travel, a flag): what matched, the
/// plan it ran and the tree after it.
package struct ChangeView: Sendable {
    package var outcome: RouteScriptHost.Outcome
    package var tree: TreeView

    package init(_ outcome: RouteScriptHost.Outcome, tree: HeadlessPresentable?, forms: ViewForms = .both) {
        self.outcome = outcome
        self.tree = TreeView(tree, forms: forms)
    }

    /// `dispatch --json`: one object per request, keys in the documented order.
    package var json: String { JSONWriter.ordered(members) }

    /// The change's JSON members: what matched, the plan, the tree.
    package var members: [(String, String)] {
        let request = outcome.resolution.request
        return [
            ("request", JSONWriter.quoted(outcome.request)),
            ("path", JSONWriter.quoted(request.path)),
            ("route", JSONWriter.quoted(outcome.route)),
            ("name", outcome.name.map(JSONWriter.quoted) ?? "null"),
            ("params", JSONWriter.stringObject(outcome.resolution.params)),
            ("query", JSONWriter.stringObject(request.query)),
            ("fragment", request.fragment.map(JSONWriter.quoted) ?? "null"),
            ("plan", outcome.plan.json),
            ("reasons", JSONWriter.array(outcome.reasons.map(JSONWriter.quoted))),
            ("tree", tree.json ?? "null"),
        ]
    }

    /// The request and what it matched, the plan, then the tree.
    package func text(_ style: Style) -> String {
        let resolution = outcome.resolution
        var header =
            style.bold(outcome.request) + " → " + style.green(outcome.route.isEmpty ? "/" : outcome.route)
        if let name = outcome.name { header += " (\(name))" }
        let params = resolution.params.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        if !params.isEmpty { header += "  " + params.joined(separator: " ") }
        var lines = [header]
        if !resolution.redirects.isEmpty {
            lines.append(
                style.dim("  via " + (resolution.redirects + [resolution.request.original]).joined(separator: " → ")))
        }
        for reason in outcome.reasons { lines.append(style.dim("  " + reason)) }
        if outcome.plan.isEmpty {
            lines.append(style.dim("  plan: nothing to do"))
        } else {
            lines.append("  plan:")
            lines += PlanView.lines(outcome.plan, style: style)
        }
        if let text = tree.text { lines.append(text) }
        return lines.joined(separator: "\n")
    }
}

/// A plan's operations, one a line, the operation's name coloured.
package enum PlanView {
    package static func lines(_ plan: Plan, style: Style) -> [String] {
        plan.operations.map { "    " + style.cyan($0.name) + String($0.text.dropFirst($0.name.count)) }
    }
}
