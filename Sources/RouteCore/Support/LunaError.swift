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
        // Over the UTF-8 bytes (a colon and digits are ASCII): the first version walked
        // Characters, and reading an exported 10k-route tree spent 85 M instructions here.
        var text = message
        let found = text.withUTF8 { bytes -> SourceLocation? in
            var end = min(bytes.count, 512)
            if let newline = bytes[..<end].firstIndex(of: UInt8(ascii: "\n")) { end = newline }
            // The file may itself hold colons (`[string "a:b"]`): try each colon in turn.
            for colon in 1..<max(1, end) where bytes[colon] == UInt8(ascii: ":") {
                var digit = colon + 1
                var line = 0
                while digit < end, digit - colon <= 10, (48...57).contains(bytes[digit]) {
                    line = line * 10 + Int(bytes[digit] - 48)
                    digit += 1
                }
                let count = digit - colon - 1
                if (1...9).contains(count), digit < end, bytes[digit] == UInt8(ascii: ":") {
                    return SourceLocation(
                        file: String(decoding: UnsafeBufferPointer(rebasing: bytes[..<colon]), as: UTF8.self),
                        line: line)
                }
            }
            return nil
        }
        guard let found else { return nil }
        self = found
    }

    public var description: String { "\(file):\(line)" }
}

extension RouteError: LunaError {
    public var kindName: String { kind.rawValue }
}

extension RouteDefinitionError: LunaError {
    public var kindName: String { "definition" }
}
