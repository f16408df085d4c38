import LuaHost
import LunaLive
import RouteCore
import RouteScript

/// How results are printed: the JSON objects the README describes, or text for people.
package enum Output {
    /// `KEY=VALUE` words (`luna path`, the REPL's `path`) as a dictionary, or the first word
    /// that is not one.
    /// Splits a command line into words as a shell does: white space separates, `"…"` and
    /// `'…'` quote (`path book "title=Dune Messiah"`), a backslash escapes the next character.
    /// Nil for an unclosed quote.
    package static func words(_ text: String) -> [String]? {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for c in text {
            if escaped {
                current.append(c)
                escaped = false
            } else if c == "\\", quote != "'" {
                escaped = true
                inWord = true
            } else if let open = quote {
                if c == open { quote = nil } else { current.append(c) }
            } else if c == "\"" || c == "'" {
                quote = c
                inWord = true
            } else if c.isWhitespace {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(c)
                inWord = true
            }
        }
        guard quote == nil, !escaped else { return nil }
        if inWord { words.append(current) }
        return words
    }

    package static func keyValues(_ words: [String]) -> (values: [String: String], bad: String?) {
        var values: [String: String] = [:]
        for word in words {
            guard let equals = word.firstIndex(of: "="), equals != word.startIndex else { return (values, word) }
            values[String(word[..<equals])] = String(word[word.index(after: equals)...])
        }
        return (values, nil)
    }

    /// `dispatch --json`: one object per request, keys in the documented order.
    package static func json(_ outcome: RouteScriptHost.Outcome, tree: HeadlessPresentable?) -> String {
        let request = outcome.resolution.request
        let fields: [(String, String)] = [
            ("request", JSONWriter.quoted(outcome.request)),
            ("path", JSONWriter.quoted(request.path)),
            ("route", JSONWriter.quoted(outcome.route)),
            ("name", outcome.name.map(JSONWriter.quoted) ?? "null"),
            ("params", JSONWriter.stringObject(outcome.resolution.params)),
            ("query", JSONWriter.stringObject(request.query)),
            ("fragment", request.fragment.map(JSONWriter.quoted) ?? "null"),
            ("plan", outcome.plan.json),
            ("tree", tree?.json ?? "null"),
        ]
        return "{" + fields.map { JSONWriter.quoted($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }

    /// A failed request: `{"request":"…","error":{"kind":"noMatch","message":"…"}}`.
    package static func json(request: String, error: any Error) -> String {
        "{\"request\":\(JSONWriter.quoted(request)),\"error\":\(errorObject(error))}"
    }

    /// `{"kind":"…","message":"…"}` for any error Luna reports; with the script's path, the
    /// message's location as the user gave the script, and `file` and `line` fields.
    package static func errorObject(_ error: any Error, script: String? = nil) -> String {
        let (kind, described) = describe(error)
        guard let script else {
            return "{\"kind\":\(JSONWriter.quoted(kind)),\"message\":\(JSONWriter.quoted(described))}"
        }
        let message = ScriptPaths.relocate(described, script: script)
        let location = fileAndLine(message)
        return
            "{\"kind\":\(JSONWriter.quoted(kind)),\"message\":\(JSONWriter.quoted(message)),\"file\":\(location.map { JSONWriter.quoted($0.file) } ?? "null"),\"line\":\(location.map { String($0.line) } ?? "null")}"
    }

    /// `file` and `line` of a message starting `file:line:`.
    package static func fileAndLine(_ message: String) -> (file: String, line: Int)? {
        let parts = message.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[0].contains(" "), let line = Int(parts[1]) else { return nil }
        return (String(parts[0]), line)
    }

    /// `1 error`, `2 errors`.
    package static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    /// The error kind (as `dispatch --json` names it) and the message.
    package static func describe(_ error: any Error) -> (kind: String, message: String) {
        ErrorReport.describe(error)
    }

    /// A dispatch as text: the request and what it matched, the plan, then the tree.
    package static func text(_ outcome: RouteScriptHost.Outcome, tree: HeadlessPresentable?, style: Style) -> String {
        let resolution = outcome.resolution
        var header = style.bold(outcome.request) + " → " + style.green(outcome.route.isEmpty ? "/" : outcome.route)
        if let name = outcome.name { header += " (\(name))" }
        let params = resolution.params.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        if !params.isEmpty { header += "  " + params.joined(separator: " ") }
        var lines = [header]
        if !resolution.redirects.isEmpty {
            lines.append(
                style.dim("  via " + (resolution.redirects + [resolution.request.original]).joined(separator: " → ")))
        }
        if outcome.plan.isEmpty {
            lines.append(style.dim("  plan: nothing to do"))
        } else {
            lines.append("  plan:")
            lines += outcome.plan.operations.map {
                "    " + style.cyan($0.name) + String($0.text.dropFirst($0.name.count))
            }
        }
        if let tree { lines.append(tree.rendered()) }
        return lines.joined(separator: "\n")
    }

    /// The route table, most specific first.
    package static func routes(_ tree: RouteTree, json: Bool, style: Style) -> String {
        let order = tree.rankOrder()
        let rows = order.enumerated().map { rank, route -> (Int, String, String?, String, [String]) in
            let endpoint = tree.endpoints[route]
            let node = tree.nodes[endpoint.node]
            let chain = tree.chain(to: node.index).map { tree.nodes[$0].id }
            let pattern = endpoint.definition.displayText
            return (rank + 1, pattern.isEmpty ? "/" : pattern, endpoint.name, node.id, chain)
        }
        if json {
            let items = rows.map { row in
                "{\"rank\":\(row.0),\"pattern\":\(JSONWriter.quoted(row.1)),\"name\":\(row.2.map(JSONWriter.quoted) ?? "null"),\"id\":\(JSONWriter.quoted(row.3)),\"chain\":\(JSONWriter.array(row.4.map(JSONWriter.quoted)))}"
            }
            return "{\"routes\":" + JSONWriter.array(items) + "}"
        }
        let patternWidth = max(7, rows.map(\.1.count).max() ?? 0)
        let nameWidth = max(4, rows.map { $0.2?.count ?? 1 }.max() ?? 0)
        var lines = [
            style.bold(pad("RANK", 5) + pad("PATTERN", patternWidth + 2) + pad("NAME", nameWidth + 2) + "NODE CHAIN")
        ]
        for row in rows {
            lines.append(
                pad(String(row.0), 5) + pad(row.1, patternWidth + 2) + pad(row.2 ?? "-", nameWidth + 2)
                    + row.4.joined(separator: " > "))
        }
        return lines.joined(separator: "\n")
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
