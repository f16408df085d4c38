/// A command as people type it (the REPL's words) and as the Lua test API passes it
/// (positional values): both become the fields of the JSON form, which
/// ``Command/init(op:fields:)`` checks, so the rules are the same everywhere.
extension CommandSpec {
    /// The fields the REPL's words after the command's own give (`books/42 --keep` for `go`).
    /// A refusal is worded for the REPL (``usage`` goes before it).
    package func fields(typed argument: String) throws(CommandError) -> JSONValue {
        var rest = Substring(argument.trimmingSpaces)
        var fields: [(String, JSONValue)] = []
        if let raw = arguments.first(where: { $0.kind == .raw }) {
            guard !rest.isEmpty else { throw CommandError("missing \(raw.placeholder)") }
            return .object([(raw.key, .string(String(rest)))])
        }
        // Options are trailing `--name` words.
        let options = arguments.filter { $0.kind == .option }
        while true {
            let start = rest.lastIndex(where: \.isWhitespace).map { rest.index(after: $0) } ?? rest.startIndex
            let word = rest[start...]
            guard word.hasPrefix("--") else { break }
            guard let option = options.first(where: { "--" + $0.key == word }) else {
                let near = options.first { ("--" + $0.key).hasPrefix(word.prefix(4)) }
                throw CommandError("unknown option '\(word)'" + (near.map { " (did you mean '--\($0.key)'?)" } ?? ""))
            }
            fields.append((option.key, .bool(true)))
            rest = rest[..<start]
            while let last = rest.last, last.isWhitespace { rest = rest.dropLast() }
        }
        for argument in arguments where argument.kind != .option {
            switch argument.kind {
            case .text:
                var text = rest
                rest = ""
                if let quote = text.first, quote == "\"" || quote == "'" {
                    guard text.count >= 2, text.last == quote else { throw CommandError("unterminated quote \(quote)") }
                    text = text.dropFirst().dropLast()
                }
                if text.isEmpty {
                    if argument.optional { continue }
                    throw CommandError("missing \(argument.placeholder)")
                }
                fields.append((argument.key, .string(String(text))))
            case .assignment(let valueKey):
                let text = rest
                rest = ""
                guard let equals = text.firstIndex(of: "="),
                    case let name = String(text[..<equals]).trimmingSpaces, !name.isEmpty
                else {
                    throw CommandError(
                        text.isEmpty ? "missing \(argument.placeholder)" : "'\(text)' is not \(argument.placeholder)")
                }
                let value = String(text[text.index(after: equals)...]).trimmingSpaces
                fields.append((argument.key, .string(name)))
                fields.append((valueKey, value.isEmpty ? .null : .string(value)))
            case .pairs, .values:
                guard let words = Self.words(String(rest)) else { throw CommandError("a quote is not closed") }
                rest = ""
                if let pairs = try Self.pairs(words) { fields.append((argument.key, pairs)) }
            case .word, .integer, .seconds, .choice:
                guard let (word, after) = Self.firstWord(rest) else {
                    if rest.isEmpty, argument.optional { continue }
                    throw CommandError(rest.isEmpty ? "missing \(argument.placeholder)" : "a quote is not closed")
                }
                rest = after
                fields.append((argument.key, try Self.value(word, argument)))
            case .option, .raw: break
            }
        }
        if let extra = Self.firstWord(rest)?.word ?? (rest.isEmpty ? nil : String(rest)) {
            throw CommandError("unexpected '\(extra)'")
        }
        return .object(fields)
    }

    /// The fields the Lua test API's values give (`app:go("books/42", { keep = true })`):
    /// the arguments in order (an assignment is two: name, value), then a table of options.
    package func fields(positional values: [JSONValue]) throws(CommandError) -> JSONValue {
        var fields: [(String, JSONValue)] = []
        var index = 0
        func next() -> JSONValue {
            defer { index += 1 }
            return index < values.count ? values[index] : .null
        }
        for argument in arguments where argument.kind != .option {
            if case .assignment(let valueKey) = argument.kind {
                fields.append((argument.key, next()))
                fields.append((valueKey, next()))
            } else {
                fields.append((argument.key, next()))
            }
        }
        let options = arguments.filter { $0.kind == .option }
        if !options.isEmpty, index < values.count {
            switch next() {
            case .null: break
            case .object(let members):
                for (key, value) in members {
                    guard options.contains(where: { $0.key == key }) else {
                        throw CommandError(
                            "\(lua ?? word): unknown option '\(key)' (options: \(options.map(\.key).joined(separator: ", ")))"
                        )
                    }
                    fields.append((key, value))
                }
            default: throw CommandError("\(lua ?? word): options are a table ({ \(options[0].key) = true })")
            }
        }
        if values[min(index, values.count)...].contains(where: { $0 != .null }) {
            throw CommandError("\(lua ?? word) takes \(index) argument\(index == 1 ? "" : "s"), got \(values.count)")
        }
        // Numbers the table types as numbers; every other value is checked as JSON's would be.
        return .object(fields.filter { $0.1 != .null })
    }

    /// The REPL's line for `command` (`go books/42 --keep`, `flag beta=on`): what the history
    /// shows and what a replay types.
    package static func line(_ command: Command) -> String {
        guard let spec = named(command.op) else { return command.op }
        let fields = JSONValue.object(command.fields)
        var words = [spec.word]
        var options: [String] = []
        for argument in spec.arguments {
            let value = fields[argument.key]
            switch argument.kind {
            case .option: if value == .bool(true) { options.append("--" + argument.key) }
            case .assignment(let valueKey):
                words.append((value?.string ?? "") + "=" + (fields[valueKey]?.string ?? ""))
            case .pairs:
                guard case .object(let members)? = value else { continue }
                for (key, item) in members {
                    let items: [JSONValue] = if case .array(let list) = item { list } else { [item] }
                    for item in items { words.append(Self.quotedWord(key + "=" + (item.string ?? ""))) }
                }
            case .values:
                guard case .object(let members)? = value else { continue }
                for (key, item) in members.sorted(by: { $0.0 < $1.0 }) {
                    let text = AttributeValue(json: item).map(\.description) ?? ""
                    words.append(Self.quotedWord(key + "=" + text))
                }
            case .text, .raw:
                if let text = value?.string { words.append(text) }
            case .word, .choice:
                if let text = value?.string { words.append(Self.quotedWord(text)) }
            case .integer, .seconds:
                if case .number(let text)? = value { words.append(text) }
            }
        }
        return (words + options).joined(separator: " ")
    }

    /// `KEY=VALUE` words as an object of strings, a key given twice a list (`tags=a tags=b`);
    /// nil for none.
    package static func pairs(_ words: [String]) throws(CommandError) -> JSONValue? {
        var pairs: [(String, JSONValue)] = []
        for word in words {
            guard let equals = word.firstIndex(of: "="), equals != word.startIndex else {
                throw CommandError("'\(word)' is not KEY=VALUE")
            }
            let key = String(word[..<equals])
            let value = JSONValue.string(String(word[word.index(after: equals)...]))
            if let index = pairs.firstIndex(where: { $0.0 == key }) {
                switch pairs[index].1 {
                case .array(let items): pairs[index].1 = .array(items + [value])
                default: pairs[index].1 = .array([pairs[index].1, value])
                }
            } else {
                pairs.append((key, value))
            }
        }
        return pairs.isEmpty ? nil : .object(pairs)
    }

    // MARK: Words

    /// Splits text into words as a shell does: white space separates, `"…"` and `'…'` quote
    /// (`path book "title=Dune Messiah"`), a backslash escapes the next character. Nil for an
    /// unclosed quote.
    package static func words(_ text: String) -> [String]? {
        var words: [String] = []
        var rest = Substring(text)
        while true {
            guard let (word, after) = firstWord(rest) else {
                return rest.allSatisfy(\.isWhitespace) ? words : nil
            }
            words.append(word)
            rest = after
        }
    }

    /// The first word of `text` and what follows it; nil when there is none or its quote is
    /// not closed.
    static func firstWord(_ text: Substring) -> (word: String, rest: Substring)? {
        var index = text.startIndex
        while index < text.endIndex, text[index].isWhitespace { index = text.index(after: index) }
        guard index < text.endIndex else { return nil }
        var word = ""
        var quote: Character?
        var escaped = false
        while index < text.endIndex {
            let c = text[index]
            if escaped {
                word.append(c)
                escaped = false
            } else if c == "\\", quote != "'" {
                escaped = true
            } else if let open = quote {
                if c == open { quote = nil } else { word.append(c) }
            } else if c == "\"" || c == "'" {
                quote = c
            } else if c.isWhitespace {
                break
            } else {
                word.append(c)
            }
            index = text.index(after: index)
        }
        guard quote == nil, !escaped else { return nil }
        return (word, text[index...])
    }

    /// A word as ``words(_:)`` reads it back: quoted when it holds a space, a quote or a backslash.
    static func quotedWord(_ word: String) -> String {
        guard word.isEmpty || word.contains(where: { $0.isWhitespace || $0 == "\"" || $0 == "'" || $0 == "\\" }) else {
            return word
        }
        return "'" + word.flatMap { $0 == "'" ? Array("'\\''") : [$0] } + "'"
    }

    private static func value(_ word: String, _ argument: CommandArgument) throws(CommandError) -> JSONValue {
        switch argument.kind {
        case .integer:
            guard let number = Int(word) else {
                throw CommandError("\(argument.placeholder) is a whole number, not '\(word)'")
            }
            return .number(String(number))
        case .seconds:
            guard let number = Double(word), number.isFinite, number >= 0 else {
                throw CommandError("\(argument.placeholder) is a number, 0 or more, not '\(word)'")
            }
            return .number(Command.number(number))
        case .choice(let names):
            guard names.contains(word) else {
                throw CommandError("'\(word)' is not one of \(names.joined(separator: ", "))")
            }
            return .string(word)
        default: return .string(word)
        }
    }
}

extension String {
    /// Without white space at either end.
    package var trimmingSpaces: String {
        var slice = Substring(self)
        while let first = slice.first, first.isWhitespace { slice = slice.dropFirst() }
        while let last = slice.last, last.isWhitespace { slice = slice.dropLast() }
        return String(slice)
    }

}
