import RouteCore
import RouteScript

/// The actions since the start (or the last `reset`) as a ready-to-run `luna test` file.
package enum TestSource {
    /// The test file's text.
    package static func text(
        name: String, script: String, entries: [HistoryEntry], route: String?, device: Device, flags: [String: String]
    ) -> String {
        let since = entries.lastIndex { $0.kind == .reset }.map { entries[($0 + 1)...] } ?? entries[...]
        let settled = !since.contains { $0.kind == .flag || $0.kind == .device }
        var options: [String] = []
        if settled, device != .phone { options.append("device = \(quoted(device.rawValue))") }
        if settled, !flags.isEmpty {
            let pairs = flags.sorted { $0.key < $1.key }.map { "[\(quoted($0.key))] = \(quoted($0.value))" }
            options.append("flags = { " + pairs.joined(separator: ", ") + " }")
        }
        var lines = [
            "-- Recorded in the luna REPL with `save-test \(name)`; run it with `luna test`.",
            "local app = luna.open(\(quoted(script))\(options.isEmpty ? "" : ", { " + options.joined(separator: ", ") + " }"))",
            "",
            "test(\(quoted(String(name.map { $0 == "_" ? " " : $0 }))), function()",
        ]
        for entry in since {
            switch entry.kind {
            case .dispatch:
                let keep = entry.detail == "--keep" ? ", { keep = true }" : ""
                lines.append("  app:go(\(quoted(entry.request ?? ""))\(keep))")
            case .sync: lines.append("  app:sync(\(quoted(entry.request ?? "")))")
            case .back: lines.append("  app:back()")
            default: break
            }
            // A change a leave guard asked about, answered yes.
            if entry.detail == "confirmed", [.dispatch, .sync, .back].contains(entry.kind) {
                lines.append("  app:confirm()")
            }
            switch entry.kind {
            case .dispatch, .sync, .back: break
            case .flag:
                let detail = entry.detail ?? ""
                if let equals = detail.firstIndex(of: "=") {
                    let flagName = String(detail[..<equals])
                    lines.append(
                        "  app:flag(\(quoted(flagName)), \(quoted(String(detail[detail.index(after: equals)...]))))")
                } else {
                    lines.append("  app:flag(\(quoted(String(detail.split(separator: " ").first ?? ""))), nil)")
                }
            case .device: lines.append("  app:device(\(quoted(entry.detail ?? "phone")))")
            case .reload: lines.append("  app:reload()")
            case .reset: break
            case .wait: lines.append("  app:wait(\(entry.detail ?? "0"))")
            }
        }
        if let route { lines.append("  expect(app.route).to_be(\(quoted(route)))") }
        lines.append("  expect_tree(app, \(quoted(name)))")
        lines.append("end)")
        return lines.joined(separator: "\n") + "\n"
    }

    /// A Lua string literal for `text`: quotes and backslashes escaped, control characters as
    /// three-digit `\ddd` escapes (a raw carriage return or newline would end the literal).
    package static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let digits = String(scalar.value)
                out += "\\" + String(repeating: "0", count: 3 - digits.count) + digits
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
