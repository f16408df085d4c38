/// Writes JSON text with sorted object keys and unescaped slashes (the `--json` output docs/cli.md describes).
///
/// ```swift
/// JSONWriter.quoted("a/b \"c\"")   // "\"a/b \\\"c\\\"\""
/// ```
package enum JSONWriter {
    /// A JSON string literal for `string`.
    package static func quoted(_ string: String) -> String {
        var result = "\""
        result.reserveCapacity(string.utf8.count + 2)
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\u{08}": result += "\\b"
            case "\u{0C}": result += "\\f"
            case let s where s.value < 0x20:
                let hex = String(s.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        result += "\""
        return result
    }

    /// An object from already-encoded values, keys sorted.
    package static func object(_ fields: [String: String]) -> String {
        "{" + fields.sorted { $0.key < $1.key }.map { quoted($0.key) + ":" + $0.value }.joined(separator: ",") + "}"
    }

    /// An object with its keys in the given order (already-encoded values).
    package static func ordered(_ fields: [(String, String)]) -> String {
        "{" + fields.map { quoted($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }

    /// An object of string values, keys sorted.
    package static func stringObject(_ fields: [String: String]) -> String {
        object(fields.mapValues(quoted))
    }

    /// An array from already-encoded values.
    package static func array(_ items: [String]) -> String {
        "[" + items.joined(separator: ",") + "]"
    }
}
