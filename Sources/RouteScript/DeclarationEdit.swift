import RouteCore

/// A save that changed one string of one declaration and nothing else, in a script that is
/// only declarations: what a reload can apply to the declarations it kept instead of running
/// the script again (README: hot reload).
///
/// The script must be, token for token, `local` statements and one `return` whose values are
/// strings, numbers, booleans, `nil`, tables, locals declared before, and builder calls with
/// a table (`endpoint { "books/:id", title = "Book" }`). Such a script has no functions, loops
/// or calls other than the builders, so each builder call ran exactly once, its node's fields
/// are the literals written in it, and no Lua ran after the load. The changed string must be
/// an endpoint's pattern or a `title`, `id`, `name`, `regex` or `initial` written directly in
/// a builder's table, and the only builder call starting on its line. Anything else (a script
/// with a function, a global read, an operator, `[key] =` fields, a field given twice, a
/// second builder call on the line, a change of line count or of more than one token) is not
/// an edit: the reload runs the script.
struct DeclarationEdit: Equatable {
    enum Field: Equatable {
        case pattern
        case named(String)
    }

    /// The line of the builder call, as its node's location gives it.
    let line: Int
    let kind: NodeKind
    let field: Field
    /// The string's token before and after, as written (quotes and escapes included).
    let oldLiteral: String
    let newLiteral: String

    /// The string fields an edit may change: each is copied as is into the declaration.
    static let editableFields: Set<String> = ["title", "id", "name", "regex", "initial"]

    /// The edit that turns `old` into `new`, or nil (see the type).
    static func find(old: String, new: String) -> DeclarationEdit? {
        var old = old
        var new = new
        return old.withUTF8 { oldBytes in
            new.withUTF8 { newBytes in find(old: oldBytes, new: newBytes) }
        }
    }

    private static func find(old: UnsafeBufferPointer<UInt8>, new: UnsafeBufferPointer<UInt8>) -> DeclarationEdit? {
        let shorter = min(old.count, new.count)
        var prefix = 0
        while prefix < shorter, old[prefix] == new[prefix] { prefix += 1 }
        if prefix == old.count && prefix == new.count { return nil }
        var suffix = 0
        while suffix < shorter - prefix, old[old.count - 1 - suffix] == new[new.count - 1 - suffix] { suffix += 1 }
        var lexer = LuaLexer(new)
        guard let tokens = lexer.tokens() else { return nil }
        // The one token holding the change: it starts in the common prefix and what follows it
        // is all in the common suffix.
        guard
            let index = tokens.lastIndex(where: { $0.start <= prefix }),
            tokens[index].kind == .string, new.count - tokens[index].end <= suffix
        else { return nil }
        let token = tokens[index]
        var oldLexer = LuaLexer(old)
        oldLexer.position = token.start
        guard let oldToken = oldLexer.next(), oldToken.kind == .string,
            old.count - oldToken.end == new.count - token.end
        else { return nil }
        // The same line breaks, so every node after the string keeps its line.
        for mark in [UInt8(ascii: "\n"), UInt8(ascii: "\r")] {
            guard
                new[token.start..<token.end].count(where: { $0 == mark })
                    == old[oldToken.start..<oldToken.end].count(where: { $0 == mark })
            else { return nil }
        }
        var reader = DeclarationReader(tokens: tokens, source: new, edited: index)
        guard let place = reader.read() else { return nil }
        let builderLines = tokens.lazy.filter { $0.kind == .name && reader.builder(of: $0) != nil }.map(\.line)
        guard builderLines.count(where: { $0 == place.line }) == 1 else { return nil }
        return DeclarationEdit(
            line: place.line, kind: place.kind, field: place.field,
            oldLiteral: String(decoding: old[oldToken.start..<oldToken.end], as: UTF8.self),
            newLiteral: String(decoding: new[token.start..<token.end], as: UTF8.self))
    }
}

/// Lua 5.4's tokens, as far as ``DeclarationEdit`` needs them: where each starts and ends, its
/// line, and its kind. Nil for text Lua would not take (an unfinished string or comment).
struct LuaLexer {
    struct Token {
        enum Kind { case name, string, number, symbol, end }
        var kind: Kind
        var start: Int
        var end: Int
        var line: Int
    }

    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0
    var line = 1

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// Every token, the last of kind `end`.
    mutating func tokens() -> [Token]? {
        var tokens: [Token] = []
        while true {
            guard let token = next() else { return nil }
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private func byte(_ offset: Int = 0) -> UInt8? {
        position + offset < bytes.count ? bytes[position + offset] : nil
    }

    /// Skips a newline (`\n`, `\r`, `\r\n` or `\n\r`, one line as Lua counts them).
    private mutating func newline() {
        let first = bytes[position]
        position += 1
        if let second = byte(), second != first, second == 10 || second == 13 { position += 1 }
        line += 1
    }

    /// The level of a long bracket opening at `position` (`[[` 0, `[==[` 2), or nil.
    private func longBracket() -> Int? {
        guard byte() == UInt8(ascii: "[") else { return nil }
        var level = 0
        while byte(1 + level) == UInt8(ascii: "=") { level += 1 }
        return byte(1 + level) == UInt8(ascii: "[") ? level : nil
    }

    /// Skips a long bracket's body up to its closing bracket of the same level.
    private mutating func skipLong(level: Int) -> Bool {
        position += level + 2
        while let current = byte() {
            if current == 10 || current == 13 {
                newline()
            } else if current == UInt8(ascii: "]") {
                var closing = 0
                while byte(1 + closing) == UInt8(ascii: "=") { closing += 1 }
                if closing == level, byte(1 + closing) == UInt8(ascii: "]") {
                    position += level + 2
                    return true
                }
                position += 1
            } else {
                position += 1
            }
        }
        return false
    }

    mutating func next() -> Token? {
        while let current = byte() {
            switch current {
            case 10, 13: newline()
            case UInt8(ascii: " "), 9, 11, 12: position += 1
            case UInt8(ascii: "-") where byte(1) == UInt8(ascii: "-"):
                position += 2
                if let level = longBracket() {
                    guard skipLong(level: level) else { return nil }
                } else {
                    while let byte = byte(), byte != 10, byte != 13 { position += 1 }
                }
            default:
                return token(current)
            }
        }
        return Token(kind: .end, start: position, end: position, line: line)
    }

    private static func isNameStart(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") || byte == UInt8(ascii: "_")
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func token(_ first: UInt8) -> Token? {
        let start = position
        let startLine = line
        func made(_ kind: Token.Kind) -> Token { Token(kind: kind, start: start, end: position, line: startLine) }
        if Self.isNameStart(first) {
            while let byte = byte(), Self.isNameStart(byte) || Self.isDigit(byte) { position += 1 }
            return made(.name)
        }
        if Self.isDigit(first) || first == UInt8(ascii: ".") && byte(1).map(Self.isDigit) == true {
            // As Lua reads a numeral: digits, letters, dots, and a sign after an exponent mark.
            let hex = first == UInt8(ascii: "0") && byte(1).map { $0 | 0x20 } == UInt8(ascii: "x")
            while let byte = byte() {
                let lower = byte | 0x20
                if lower == (hex ? UInt8(ascii: "p") : UInt8(ascii: "e")),
                    let sign = self.byte(1), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-")
                {
                    position += 2
                } else if Self.isNameStart(byte) || Self.isDigit(byte) || byte == UInt8(ascii: ".") {
                    position += 1
                } else {
                    break
                }
            }
            return made(.number)
        }
        if first == UInt8(ascii: "\"") || first == UInt8(ascii: "'") {
            position += 1
            while let byte = byte() {
                switch byte {
                case first:
                    position += 1
                    return made(.string)
                case 10, 13: return nil  // an unfinished string
                case UInt8(ascii: "\\"):
                    position += 1
                    guard let escaped = self.byte() else { return nil }
                    if escaped == 10 || escaped == 13 {
                        newline()
                    } else if escaped == UInt8(ascii: "z") {
                        // `\z` skips the white space after it, line breaks included.
                        position += 1
                        while let space = self.byte(), space == 32 || (9...13).contains(space) {
                            if space == 10 || space == 13 { newline() } else { position += 1 }
                        }
                    } else {
                        position += 1
                    }
                default: position += 1
                }
            }
            return nil
        }
        if let level = longBracket() {
            guard skipLong(level: level) else { return nil }
            return made(.string)
        }
        // Symbols: the longest of Lua's (`...`, `..`, `==`, `~=`, `<=`, `>=`, `//`, `::`, `<<`, `>>`).
        let pairs: [(UInt8, UInt8)] = [
            (46, 46), (61, 61), (126, 61), (60, 61), (62, 61), (47, 47), (58, 58), (60, 60), (62, 62),
        ]
        if first == 46, byte(1) == 46, byte(2) == 46 {
            position += 3
        } else if let second = byte(1), pairs.contains(where: { $0 == (first, second) }) {
            position += 2
        } else {
            position += 1
        }
        return made(.symbol)
    }
}

/// Reads a token list as ``DeclarationEdit``'s declarations-only script and finds where the
/// edited string sits. Nil for anything else.
private struct DeclarationReader {
    let tokens: [LuaLexer.Token]
    let source: UnsafeBufferPointer<UInt8>
    let edited: Int
    var index = 0
    var locals: Set<String> = []
    var place: (line: Int, kind: NodeKind, field: DeclarationEdit.Field)?

    init(tokens: [LuaLexer.Token], source: UnsafeBufferPointer<UInt8>, edited: Int) {
        self.tokens = tokens
        self.source = source
        self.edited = edited
    }

    private static let keywords: Set<String> = [
        "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in", "local", "nil",
        "not", "or", "repeat", "return", "then", "true", "until", "while",
    ]

    private static let builders: [String: NodeKind] = Dictionary(
        DSLSchema.builders.map { ($0.name, $0.kind) }, uniquingKeysWith: { first, _ in first })

    func text(_ token: LuaLexer.Token) -> String {
        String(decoding: source[token.start..<token.end], as: UTF8.self)
    }

    /// The builder a name token calls, or nil.
    func builder(of token: LuaLexer.Token) -> NodeKind? {
        // Builder names are 4 to 8 letters: most names are out before a string is made.
        guard token.kind == .name, (4...8).contains(token.end - token.start) else { return nil }
        return Self.builders[text(token)]
    }

    private var current: LuaLexer.Token { tokens[index] }

    /// Whether `token` is the one-byte symbol `symbol`.
    private func isSymbol(_ symbol: Unicode.Scalar, _ token: LuaLexer.Token) -> Bool {
        token.kind == .symbol && token.end - token.start == 1 && source[token.start] == UInt8(ascii: symbol)
    }

    private func isSymbol(_ symbol: Unicode.Scalar) -> Bool { isSymbol(symbol, current) }

    /// Whether `token` is the name `word`, compared in place.
    private func isName(_ word: StaticString, _ token: LuaLexer.Token) -> Bool {
        token.kind == .name && token.end - token.start == word.utf8CodeUnitCount
            && UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
                .elementsEqual(source[token.start..<token.end])
    }

    private mutating func take(_ symbol: Unicode.Scalar) -> Bool {
        guard isSymbol(symbol) else { return false }
        index += 1
        return true
    }

    /// The whole script, and the edited string's place in it.
    mutating func read() -> (line: Int, kind: NodeKind, field: DeclarationEdit.Field)? {
        while isName("local", current) {
            index += 1
            var names: [String] = []
            repeat {
                guard current.kind == .name else { return nil }
                let name = text(current)
                // A local named like a builder (or _ENV) would change what a builder call is.
                guard !Self.keywords.contains(name), builder(of: current) == nil, name != "_ENV" else { return nil }
                names.append(name)
                index += 1
            } while take(",")
            if take("=") {
                repeat { guard expression() else { return nil } } while take(",")
            }
            _ = take(";")
            // Visible after the statement, as in Lua.
            locals.formUnion(names)
        }
        guard isName("return", current) else { return nil }
        index += 1
        guard expression() else { return nil }
        _ = take(";")
        guard current.kind == .end else { return nil }
        return place
    }

    /// One value: a literal, a local, a table, or a builder called with a table.
    private mutating func expression() -> Bool {
        let token = current
        switch token.kind {
        case .string, .number:
            index += 1
            return true
        case .name:
            if isName("nil", token) || isName("true", token) || isName("false", token)
                || (!locals.isEmpty && locals.contains(text(token)))
            {
                index += 1
                return true
            }
            guard let kind = builder(of: token) else { return false }
            index += 1
            return table(builder: (kind, token.line))
        case .symbol:
            if isSymbol("-") {
                index += 1
                guard current.kind == .number else { return false }
                index += 1
                return true
            }
            return table(builder: nil)
        case .end:
            return false
        }
    }

    /// A table constructor: a builder's (whose direct strings may be the edit) or a plain one.
    private mutating func table(builder: (kind: NodeKind, line: Int)?) -> Bool {
        guard take("{") else { return false }
        var named: Set<String> = []
        var positional = 0
        while !isSymbol("}") {
            var field: DeclarationEdit.Field?
            if current.kind == .name, index + 1 < tokens.count, isSymbol("=", tokens[index + 1]) {
                let name = text(current)
                // Given twice, the last one counts: which string a change reaches is unclear.
                guard named.insert(name).inserted else { return false }
                field = .named(name)
                index += 2
            } else if isSymbol("[") {
                return false
            } else {
                positional += 1
                if positional == 1 { field = .pattern }
            }
            if index == edited, let builder, let field {
                switch field {
                case .pattern where builder.kind == .endpoint:
                    place = (builder.line, builder.kind, field)
                case .named(let name)
                where DeclarationEdit.editableFields.contains(name)
                    && DSLSchema.fields(of: builder.kind)[name] == .string:
                    place = (builder.line, builder.kind, field)
                default: break
                }
            }
            guard expression() else { return false }
            guard take(",") || take(";") || isSymbol("}") else { return false }
        }
        index += 1
        return true
    }
}
