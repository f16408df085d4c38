import RouteCore

/// Checks the exported-tree reader (`RouteTree(json:)`: what an app reads at launch, and what a
/// linked app is sent by the session) and the JSON parser under it on any text: the export
/// fuzzer feeds it bytes, the tests the examples' exports and their mutations.
///
/// What must hold, besides not crashing: JSON that parses writes back (``JSONValue/jsonText``)
/// as JSON that parses to the same value and the same text; a tree that loads exports as JSON
/// that loads again and exports the same; a refusal says why.
///
/// ```swift
/// ExportCase(try String(contentsOfFile: "books.json")).problem()   // nil
/// ```
package struct ExportCase: Sendable {
    package let text: String

    package init(_ text: String) { self.text = text }

    /// What went wrong, or nil.
    package func problem() -> String? {
        // Parsed once, as deep as the tree reader allows, for the round trip and the hook names.
        let value = try? JSONValue.parse(text, maxDepth: Self.maxDepth)
        if let value {
            let written = value.jsonText
            guard let again = try? JSONValue.parse(written, maxDepth: Self.maxDepth) else {
                return "JSON \(clip(text)) parses, but its written form \(clip(written)) does not"
            }
            guard again == value, again.jsonText == written else {
                return "JSON \(clip(text)) written as \(clip(written)) reads back as \(clip(again.jsonText))"
            }
        }
        let tree: RouteTree
        do {
            tree = try RouteTree(json: text, hooks: Self.hooks(for: value))
        } catch {
            return error.message.isEmpty ? "the reader refused \(clip(text)) without a message" : nil
        }
        let exported = tree.exportJSON()
        let reloaded: RouteTree
        do {
            // The export names hooks by node id (`ID#enabled`), whatever the text called them.
            reloaded = try RouteTree(
                json: exported, hooks: Self.hooks(for: try? JSONValue.parse(exported, maxDepth: Self.maxDepth)))
        } catch {
            return "a tree read from \(clip(text)) exports as JSON it cannot read: \(error.message)"
        }
        let again = reloaded.exportJSON()
        guard again == exported else {
            return "a tree read from \(clip(text)) exports differently the second time:\n\(exported)\n---\n\(again)"
        }
        return nil
    }

    /// The nesting `RouteTree(json:)` reads.
    private static let maxDepth = 512

    /// A hook of each kind for every string in `value` that could name one (`ID#enabled`,
    /// `ID#where.id`), so trees with guards and validators load too.
    private static func hooks(for value: JSONValue?) -> RouteHooks {
        var hooks = RouteHooks()
        guard let value else { return hooks }
        hookNames(in: value) { name in
            hooks.validators[name] = { !$0.isEmpty }
            hooks.enabled[name] = { _ in true }
            hooks.redirects[name] = { _ in nil }
        }
        return hooks
    }

    private static func hookNames(in value: JSONValue, _ found: (String) -> Void) {
        switch value {
        case .string(let text) where text.contains("#"): found(text)
        case .array(let items): for item in items { hookNames(in: item, found) }
        case .object(let fields): for (_, field) in fields { hookNames(in: field, found) }
        default: break
        }
    }

    private func clip(_ text: String) -> String {
        text.count <= 300 ? text.debugDescription : String(text.prefix(300)).debugDescription + "…"
    }
}
