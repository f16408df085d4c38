import LuaHost
import LunaLive
import RouteCore
import RouteScript

/// Reading the command line's words (the session's views print the results).
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

    /// The keys given more than once, with every value in order (`tags=a tags=b`): a query
    /// list for reverse routing (``keyValues(_:)`` keeps the last).
    package static func repeatedKeys(_ words: [String]) -> [String: [String]] {
        var all: [String: [String]] = [:]
        for word in words {
            guard let equals = word.firstIndex(of: "="), equals != word.startIndex else { continue }
            all[String(word[..<equals]), default: []].append(String(word[word.index(after: equals)...]))
        }
        return all.filter { $0.value.count > 1 }
    }

    /// `1 error`, `2 errors`.
    package static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
}
