import RouteCore
import RouteScript

/// The actions since the start (or the last `reset`) as a ready-to-run `luna test` file.
package enum TestSource {
    /// The test file's text.
    package static func text(
        name: String, script: String, entries: [HistoryEntry], route: String?, device: Device, flags: [String: String]
    ) -> String {
        let since = entries.lastIndex { $0.kind == .reset }.map { entries[($0 + 1)...] } ?? entries[...]
        // The flags and device of now are the test's start only when nothing since changed them
        // (a flag, a device, or a tap, whose action may set flags).
        let settled = !since.contains { entry in
            entry.commands.contains { command in
                switch command {
                case .flag, .device, .tap: true
                default: false
                }
            }
        }
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
            for command in entry.commands {
                if let call = luaCall(command) { lines.append("  " + call) }
            }
        }
        if let route { lines.append("  expect(app.route).to_be(\(quoted(route)))") }
        lines.append("  expect_tree(app, \(quoted(name)))")
        lines.append("end)")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The Lua test API's call for `command` (`app:go("books/42", { keep = true })`), from the
    /// command table: its arguments in order, then its options; nil for a command the API
    /// has no method for, and for `reset` (a recording starts after it).
    package static func luaCall(_ command: Command) -> String? {
        guard let spec = CommandSpec.named(command.op), let method = spec.lua, command != .reset else { return nil }
        let fields = JSONValue.object(command.fields)
        var values: [String] = []
        var options: [String] = []
        for argument in spec.arguments {
            switch argument.kind {
            case .option:
                if fields[argument.key] == .bool(true) { options.append("\(argument.key) = true") }
            case .assignment(let valueKey):
                values.append(lua(fields[argument.key]))
                values.append(lua(fields[valueKey]))
            default: values.append(lua(fields[argument.key]))
            }
        }
        if !options.isEmpty {
            values.append("{ " + options.joined(separator: ", ") + " }")
        }
        while values.last == "nil" { values.removeLast() }
        return "app:\(method)(" + values.joined(separator: ", ") + ")"
    }

    /// A JSON value as a Lua literal (objects as tables; a key that is a Lua name bare,
    /// `{ name = "Ada" }`, another quoted, `{ ["a b"] = 1 }`).
    private static func lua(_ value: JSONValue?) -> String {
        switch value {
        case nil, .null?: "nil"
        case .bool(let b)?: b ? "true" : "false"
        case .number(let text)?: text
        case .string(let text)?: quoted(text)
        case .array(let items)?: "{ " + items.map { lua($0) }.joined(separator: ", ") + " }"
        case .object(let members)?:
            "{ " + members.map { key(of: $0.0) + " = " + lua($0.1) }.joined(separator: ", ") + " }"
        }
    }

    /// A table key as Lua writes it: a name bare, anything else (a keyword too) quoted.
    private static func key(of text: String) -> String {
        let keywords: Set<String> = [
            "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in", "local",
            "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
        ]
        let bytes = Array(text.utf8)
        func letter(_ byte: UInt8) -> Bool { (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) || byte == 95 }
        guard let first = bytes.first, letter(first), bytes.allSatisfy({ letter($0) || ($0 >= 48 && $0 <= 57) }),
            !keywords.contains(text)
        else { return "[\(quoted(text))]" }
        return text
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
