import RouteCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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
/// second builder call on the line, a change across a line break or of more than one token)
/// is not an edit: the reload runs the script.
struct DeclarationEdit: Equatable {
    enum Field: Equatable {
        case pattern
        case named(String)

        /// The declaration's string this field sets (nil: not one an edit may change).
        var keyPath: (any ReferenceWritableKeyPath<Declaration, String?> & Sendable)? {
            guard case .named(let name) = self else { return \Declaration.pattern }
            return DeclarationEdit.editableFields[name]
        }
    }

    /// The line of the builder call, as its node's location gives it.
    let line: Int
    let kind: NodeKind
    let field: Field
    /// The string's token before and after, as written (quotes and escapes included).
    let oldLiteral: String
    let newLiteral: String

    /// ``DSLSchema/builders`` as bytes, compared with tokens in place.
    static let builderNames: [(name: [UInt8], kind: NodeKind)] = DSLSchema.builders.map {
        (Array($0.name.utf8), $0.kind)
    }

    /// The string fields an edit may change, each copied as is into the declaration.
    static let editableFields: [String: any ReferenceWritableKeyPath<Declaration, String?> & Sendable] = [
        "title": \.title, "id": \.id, "name": \.name, "regex": \.regex, "initial": \.initial,
    ]

    /// The edit that turns `old` into `new`, or nil (see the type).
    static func find(old: String, new: String) -> DeclarationEdit? {
        var old = old
        var new = new
        return old.withUTF8 { oldBytes in
            new.withUTF8 { newBytes in find(old: oldBytes, new: newBytes) }
        }
    }

    private static func find(old: UnsafeBufferPointer<UInt8>, new: UnsafeBufferPointer<UInt8>) -> DeclarationEdit? {
        // The same text (a save that changed nothing) is told apart at memory speed.
        if old.count == new.count, let a = old.baseAddress, let b = new.baseAddress, memcmp(a, b, old.count) == 0 {
            return nil
        }
        let shorter = min(old.count, new.count)
        var prefix = 0
        while prefix < shorter, old[prefix] == new[prefix] { prefix += 1 }
        // Two empty texts (no base address to compare above).
        if prefix == old.count && prefix == new.count { return nil }
        var suffix = 0
        while suffix < shorter - prefix, old[old.count - 1 - suffix] == new[new.count - 1 - suffix] { suffix += 1 }
        // A change across a line break (a line added or removed, a comment at the end) is not
        // one string's: it is told at the cost of the change, before the text is read.
        func breaksLine(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
            text[prefix..<(text.count - suffix)].contains { $0 == 10 || $0 == 13 }
        }
        if breaksLine(old) || breaksLine(new) { return nil }
        // One pass over the new text: its tokens are read as declarations as they are made,
        // and the token holding the change is the first one ending after the common prefix.
        var reader = DeclarationReader(source: new, changeStart: prefix, changeEnd: new.count - suffix)
        guard let place = reader.read(), let token = reader.edited else { return nil }
        // The token starts in the common prefix and what follows it is all in the common
        // suffix; the old text has a string token at the same place, followed by the same text.
        guard token.start <= prefix, new.count - token.end <= suffix else { return nil }
        var oldLexer = LuaLexer(old)
        oldLexer.position = token.start
        // Both tokens are then the common prefix, the change and the common suffix, and the
        // change has no line break: every node after the string keeps its line.
        guard let oldToken = oldLexer.next(), oldToken.kind == .string,
            old.count - oldToken.end == new.count - token.end
        else { return nil }
        return DeclarationEdit(
            line: place.line, kind: place.kind, field: place.field,
            oldLiteral: String(decoding: old[oldToken.start..<oldToken.end], as: UTF8.self),
            newLiteral: String(decoding: new[token.start..<token.end], as: UTF8.self))
    }
}

/// Lua 5.4's tokens, as far as ``DeclarationEdit`` needs them: where each starts and ends, its
/// line, and its kind. Nil for text Lua would not take (an unfinished string or comment).
/// Bytes past the end read as 0, which no token continues with.
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

    @inline(__always) private func byte(_ offset: Int = 0) -> UInt8 {
        let at = position + offset
        return at < bytes.count ? bytes[at] : 0
    }

    @inline(__always) private var atEnd: Bool { position >= bytes.count }

    /// Skips a newline (`\n`, `\r`, `\r\n` or `\n\r`, one line as Lua counts them).
    private mutating func newline() {
        let first = bytes[position]
        position += 1
        let second = byte()
        if second != first, second == 10 || second == 13 { position += 1 }
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
        while !atEnd {
            let current = bytes[position]
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
        while !atEnd {
            let current = bytes[position]
            switch current {
            case 10, 13: newline()
            case UInt8(ascii: " "), 9, 11, 12: position += 1
            case UInt8(ascii: "-") where byte(1) == UInt8(ascii: "-"):
                position += 2
                if let level = longBracket() {
                    guard skipLong(level: level) else { return nil }
                } else {
                    while !atEnd, bytes[position] != 10, bytes[position] != 13 { position += 1 }
                }
            default:
                return token(current)
            }
        }
        return Token(kind: .end, start: position, end: position, line: line)
    }

    @inline(__always) private static func isNameByte(_ byte: UInt8) -> Bool {
        let lower = byte | 0x20
        return (lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z")) || byte == UInt8(ascii: "_")
            || isDigit(byte)
    }

    @inline(__always) private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private mutating func token(_ first: UInt8) -> Token? {
        let start = position
        let startLine = line
        if Self.isNameByte(first) && !Self.isDigit(first) {
            position += 1
            while !atEnd, Self.isNameByte(bytes[position]) { position += 1 }
            return Token(kind: .name, start: start, end: position, line: startLine)
        }
        if Self.isDigit(first) || first == UInt8(ascii: ".") && Self.isDigit(byte(1)) {
            // As Lua reads a numeral: digits, letters, dots, and a sign after an exponent mark.
            let hex = first == UInt8(ascii: "0") && byte(1) | 0x20 == UInt8(ascii: "x")
            while !atEnd {
                let byte = bytes[position]
                let sign = self.byte(1)
                if byte | 0x20 == (hex ? UInt8(ascii: "p") : UInt8(ascii: "e")),
                    sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-")
                {
                    position += 2
                } else if Self.isNameByte(byte) || byte == UInt8(ascii: ".") {
                    position += 1
                } else {
                    break
                }
            }
            return Token(kind: .number, start: start, end: position, line: startLine)
        }
        if first == UInt8(ascii: "\"") || first == UInt8(ascii: "'") {
            position += 1
            while !atEnd {
                let byte = bytes[position]
                if byte == first {
                    position += 1
                    return Token(kind: .string, start: start, end: position, line: startLine)
                } else if byte == 10 || byte == 13 {
                    return nil  // an unfinished string
                } else if byte == UInt8(ascii: "\\") {
                    position += 1
                    guard !atEnd else { return nil }
                    let escaped = bytes[position]
                    if escaped == 10 || escaped == 13 {
                        newline()
                    } else if escaped == UInt8(ascii: "z") {
                        // `\z` skips the white space after it, line breaks included.
                        position += 1
                        while !atEnd, bytes[position] == 32 || (9...13).contains(bytes[position]) {
                            if bytes[position] == 10 || bytes[position] == 13 { newline() } else { position += 1 }
                        }
                    } else {
                        position += 1
                    }
                } else {
                    position += 1
                }
            }
            return nil
        }
        if let level = longBracket() {
            guard skipLong(level: level) else { return nil }
            return Token(kind: .string, start: start, end: position, line: startLine)
        }
        // Symbols: the longest of Lua's (`...`, `..`, `==`, `~=`, `<=`, `>=`, `//`, `::`, `<<`, `>>`).
        let second = byte(1)
        let pair: Bool
        switch first {
        case UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: ":"): pair = second == first
        case UInt8(ascii: "="), UInt8(ascii: "~"): pair = second == UInt8(ascii: "=")
        case UInt8(ascii: "<"), UInt8(ascii: ">"): pair = second == first || second == UInt8(ascii: "=")
        default: pair = false
        }
        position += pair ? (first == UInt8(ascii: ".") && byte(2) == UInt8(ascii: ".") ? 3 : 2) : 1
        return Token(kind: .symbol, start: start, end: position, line: startLine)
    }
}

/// Reads a text's tokens, as the lexer makes them, as ``DeclarationEdit``'s declarations-only
/// script, and finds where the edited string sits. Nil for anything else.
private struct DeclarationReader {
    let source: UnsafeBufferPointer<UInt8>
    /// Where the change starts and ends: the token holding it is the first to end after its
    /// start, and must be a string holding all of it (else the read stops there).
    let changeStart: Int
    let changeEnd: Int
    private var lexer: LuaLexer
    private var current = LuaLexer.Token(kind: .end, start: 0, end: 0, line: 0)
    private var lookahead: LuaLexer.Token?
    private var failed = false
    private(set) var edited: LuaLexer.Token?
    private var locals: Set<String> = []
    private var place: (line: Int, kind: NodeKind, field: DeclarationEdit.Field)?
    /// Lines where two builder calls start (a node's line would not say which).
    private var sharedLines: Set<Int> = []
    private var lastBuilderLine = 0

    init(source: UnsafeBufferPointer<UInt8>, changeStart: Int, changeEnd: Int) {
        self.source = source
        self.changeStart = changeStart
        self.changeEnd = changeEnd
        lexer = LuaLexer(source)
    }

    private static let keywords: Set<String> = [
        "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in", "local", "nil",
        "not", "or", "repeat", "return", "then", "true", "until", "while",
    ]

    private func text(_ token: LuaLexer.Token) -> String {
        String(decoding: source[token.start..<token.end], as: UTF8.self)
    }

    /// The builder a name token calls (``DSLSchema/builders``), or nil. Compared in place: a
    /// 10k-route script has some 20,000 names.
    private func builder(of token: LuaLexer.Token) -> NodeKind? {
        guard token.kind == .name else { return nil }
        let text = source[token.start..<token.end]
        for builder in DeclarationEdit.builderNames
        where builder.name.count == text.count && builder.name.elementsEqual(text) {
            return builder.kind
        }
        return nil
    }

    /// The lexer's next token, noted: the edited one, and the lines of builder calls. After a
    /// failure (text Lua would not take, a change outside one string) the read ends.
    private mutating func lexed() -> LuaLexer.Token {
        let end = LuaLexer.Token(kind: .end, start: source.count, end: source.count, line: 0)
        guard !failed, let token = lexer.next() else {
            failed = true
            return end
        }
        if edited == nil, token.end > changeStart || token.kind == .end {
            edited = token
            if token.kind != .string || token.start > changeStart || token.end < changeEnd {
                failed = true
                return end
            }
        }
        if builder(of: token) != nil {
            if token.line == lastBuilderLine { sharedLines.insert(token.line) }
            lastBuilderLine = token.line
        }
        return token
    }

    private mutating func advance() {
        if let next = lookahead {
            current = next
            lookahead = nil
        } else {
            current = lexed()
        }
    }

    private mutating func peek() -> LuaLexer.Token {
        if let lookahead { return lookahead }
        let next = lexed()
        lookahead = next
        return next
    }

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
        advance()
        return true
    }

    /// The whole script, and the edited string's place in it.
    mutating func read() -> (line: Int, kind: NodeKind, field: DeclarationEdit.Field)? {
        advance()
        while isName("local", current) {
            advance()
            var names: [String] = []
            repeat {
                guard current.kind == .name else { return nil }
                let name = text(current)
                // A local named like a builder (or _ENV) would change what a builder call is.
                guard !Self.keywords.contains(name), builder(of: current) == nil, name != "_ENV" else { return nil }
                names.append(name)
                advance()
            } while take(",")
            if take("=") {
                repeat { guard expression() else { return nil } } while take(",")
            }
            _ = take(";")
            // Visible after the statement, as in Lua.
            locals.formUnion(names)
        }
        guard isName("return", current) else { return nil }
        advance()
        guard expression() else { return nil }
        _ = take(";")
        guard current.kind == .end, !failed, let place, !sharedLines.contains(place.line) else { return nil }
        return place
    }

    /// One value: a literal, a local, a table, or a builder called with a table.
    private mutating func expression() -> Bool {
        let token = current
        switch token.kind {
        case .string, .number:
            advance()
            return true
        case .name:
            if isName("nil", token) || isName("true", token) || isName("false", token)
                || (!locals.isEmpty && locals.contains(text(token)))
            {
                advance()
                return true
            }
            guard let kind = builder(of: token) else { return false }
            advance()
            return table(builder: (kind, token.line))
        case .symbol:
            if isSymbol("-") {
                advance()
                guard current.kind == .number else { return false }
                advance()
                return true
            }
            return table(builder: nil)
        case .end:
            return false
        }
    }

    /// Tables open around the one being read. Lua refuses a script nested 200 deep (its C
    /// stack limit); reading the saved text comes before comparing it with the loaded one, so a
    /// save nested deeper must not reach the reader's own stack.
    private var depth = 0

    /// A table constructor: a builder's (whose direct strings may be the edit) or a plain one.
    private mutating func table(builder: (kind: NodeKind, line: Int)?) -> Bool {
        guard depth < 200, take("{") else { return false }
        depth += 1
        defer { depth -= 1 }
        var named: Set<String> = []
        var positional = 0
        while !isSymbol("}") {
            var field: DeclarationEdit.Field?
            if current.kind == .name, isSymbol("=", peek()) {
                let name = text(current)
                // Given twice, the last one counts: which string a change reaches is unclear.
                guard named.insert(name).inserted else { return false }
                field = .named(name)
                advance()
                advance()
            } else if isSymbol("[") {
                return false
            } else {
                positional += 1
                if positional == 1 { field = .pattern }
            }
            if let edited, current.start == edited.start, current.kind == .string, let builder, let field {
                switch field {
                case .pattern where builder.kind == .endpoint:
                    place = (builder.line, builder.kind, field)
                case .named(let name)
                where DeclarationEdit.editableFields[name] != nil
                    && DSLSchema.fields(of: builder.kind)[name] == .string:
                    place = (builder.line, builder.kind, field)
                default: break
                }
            }
            guard expression() else { return false }
            guard take(",") || take(";") || isSymbol("}") else { return false }
        }
        advance()
        return true
    }
}
