/// What every error a Luna host throws has in common: a kind, a message and the `file:line`
/// it points at, carried as data from where the error was raised.
///
/// ``RouteError`` (a dispatch failed), ``RouteDefinitionError`` (a tree is invalid) and
/// `RouteScriptError` (a script did not load, or was used wrongly) conform, so a host
/// catches one type:
///
/// ```swift
/// do { try host.dispatch("books/x") }
/// catch let error as LunaError {
///     print(error.kind, error.location?.description ?? "-", error.message)
///     // script books.lua:12 books.lua:12: attempt to index a nil value
/// }
/// ```
public protocol LunaError: Error, Sendable, CustomStringConvertible {
    /// The error's kind by name: `noMatch`, `invalidRequest`, `script`, `load`, …
    var kindName: String { get }
    /// The message, starting with `file:line:` where there is one.
    var message: String { get }
    /// Where the error points, if it points into a script.
    var location: SourceLocation? { get }
}

/// A place in a script: `books.lua:12`.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    public var file: String
    /// 1-based.
    public var line: Int

    public init(file: String, line: Int) {
        self.file = file
        self.line = line
    }

    /// The `file:line:` a message starts with (`books.lua:12: …`, `mod/tabs.lua:3: …`), if
    /// the first line has one.
    public init?(leadingIn message: String) {
        let firstLine = message.prefix { $0 != "\n" }.prefix(512)
        var rest = firstLine[...]
        // The file may itself hold colons (`[string "a:b"]`): try each colon in turn.
        while let colon = rest.firstIndex(of: ":") {
            let afterColon = firstLine[firstLine.index(after: colon)...]
            let digits = afterColon.prefix { $0.isASCII && $0.isNumber }
            if !digits.isEmpty, colon > firstLine.startIndex, digits.count <= 9,
                afterColon.dropFirst(digits.count).first == ":", let line = Int(digits)
            {
                self.init(file: String(firstLine[..<colon]), line: line)
                return
            }
            rest = afterColon
        }
        return nil
    }

    public var description: String { "\(file):\(line)" }
}

extension RouteError: LunaError {
    public var kindName: String { kind.rawValue }
}

extension RouteDefinitionError: LunaError {
    public var kindName: String { "definition" }
}
