import RouteCore
import RouteScript

/// Which routes a request tries, why each fails, which wins and why.
package struct ExplainView: Sendable {
    package struct Attempt: Sendable {
        package var pattern: String
        package var matched: Bool
        package var reason: String
        /// The 0-based segment that failed, if one did.
        package var segment: Int?
        /// The route's first constant differs from the request's first segment.
        package var elsewhere: Bool
    }

    package var request: String
    package var path: String
    package var segments: [String]
    package var attempts: [Attempt]
    package var winner: String?
    package var reasons: [String]
    package var guards: [String]

    /// Explains `request` on the host (its guards may run).
    package init(_ request: String, host: RouteScriptHost) throws {
        guard let tree = host.routeTree else { throw RouteScriptError(.notLoaded, "no script is loaded") }
        let explanation = try host.explain(request)
        let parsed = try tree.request(from: request)
        self.request = request
        path = parsed.path
        segments = parsed.segments
        attempts = explanation.attempts.map { attempt in
            let elsewhere = if case .constantMismatch(0, _, _) = attempt.outcome { true } else { false }
            return Attempt(
                pattern: displayPattern(attempt.pattern), matched: attempt.outcome == .matched,
                reason: attempt.reason, segment: attempt.failingSegment, elsewhere: elsewhere)
        }
        winner = explanation.winner.map { displayPattern(tree[$0].definition.displayText) }
        reasons = explanation.reasons
        guards = explanation.guards.map(\.text)
    }

    package var json: String {
        let items = attempts.map { attempt in
            JSONWriter.ordered([
                ("pattern", JSONWriter.quoted(attempt.pattern)), ("matched", attempt.matched ? "true" : "false"),
                ("reason", JSONWriter.quoted(attempt.reason)),
                ("segment", attempt.segment.map { String($0 + 1) } ?? "null"),
            ])
        }
        return JSONWriter.ordered([
            ("request", JSONWriter.quoted(request)), ("path", JSONWriter.quoted(path)),
            ("attempts", JSONWriter.array(items)), ("winner", winner.map(JSONWriter.quoted) ?? "null"),
            ("reasons", JSONWriter.array(reasons.map(JSONWriter.quoted))),
            ("guards", JSONWriter.array(guards.map(JSONWriter.quoted))),
        ])
    }

    /// Routes whose first constant already differs are summed up in one line; a failing
    /// segment gets a caret under it.
    package func lines(_ style: Style) -> [String] {
        var lines = ["explain " + displayPattern(path)]
        var elsewhere: [String] = []
        for attempt in attempts {
            if attempt.elsewhere {
                elsewhere.append(attempt.pattern)
                continue
            }
            let mark = attempt.matched ? style.green("✓") : style.red("✗")
            lines.append("  \(mark) \(attempt.pattern)  — \(attempt.reason)")
            if let segment = attempt.segment {
                let (text, caret) = Self.caret(segments, at: segment)
                lines.append("      " + text)
                lines.append("      " + style.red(caret))
            }
        }
        if !elsewhere.isEmpty {
            let shown = elsewhere.prefix(6).joined(separator: ", ") + (elsewhere.count > 6 ? ", …" : "")
            lines.append(
                "  \(style.red("✗")) \(elsewhere.count) more whose first segment is not '\(segments.first ?? "")': \(shown)"
            )
        }
        if let winner {
            lines.append("wins: " + style.bold(winner))
            lines += reasons.map { "  " + $0 }
            if !guards.isEmpty {
                lines.append("guards:")
                lines += guards.map { "  " + $0 }
            }
        } else {
            lines.append("no route wins")
        }
        return lines
    }

    /// The path with a caret line under segment `index` (past the end: after the path).
    package static func caret(_ segments: [String], at index: Int) -> (String, String) {
        let text = segments.isEmpty ? "/" : segments.joined(separator: "/")
        var offset = 0
        for segment in segments.prefix(index) { offset += segment.count + 1 }
        let width = index < segments.count ? max(1, segments[index].count) : 1
        if index >= segments.count { offset = text.count + 1 }
        return (text, String(repeating: " ", count: offset) + String(repeating: "^", count: width))
    }
}
