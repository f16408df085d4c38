internal import CLua
internal import CLuaShims

/// An error from a Lua state: a script's mistake, a limit it hit, or misuse of the VM.
///
/// The message reads the way Lua users expect, with the location first:
///
/// ```swift
/// do { try vm.run("error('boom')", chunkName: "@books.lua") }
/// catch let error as LuaError {
///     print(error.message)        // books.lua:1: boom
///     print(error.location!.line) // 1
/// }
/// ```
public struct LuaError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: String, Sendable, Equatable {
        /// The chunk did not compile.
        case syntax
        /// The script raised an error (including errors raised by host functions).
        case runtime
        /// The state's memory cap was reached.
        case memory
        /// The instruction budget of the load or call ran out.
        case budget
        /// The wall-clock deadline of the load or call passed.
        case deadline
        /// Host calls were nested too deep (Lua → host → Lua …).
        case nesting
        /// An error was raised while the error handler ran.
        case errorHandler
        /// The VM was closed.
        case closed
        /// A reference was used after it was released.
        case released
    }

    /// Where in a script an error happened.
    public struct Location: Equatable, Sendable, CustomStringConvertible {
        /// The chunk's short name (`books.lua`, `[string "..."]`).
        public var file: String
        /// The 1-based line.
        public var line: Int
        public var description: String { "\(file):\(line)" }
    }

    public var kind: Kind
    /// The message, starting with `file:line:` when Lua knew the position.
    public var message: String
    /// The location parsed from the message, if it has one.
    public var location: Location?
    /// The Lua stack traceback (at most 20 frames and 4 KiB), when there was a Lua stack.
    public var traceback: String?

    public init(kind: Kind, message: String, traceback: String? = nil) {
        self.kind = kind
        self.message = message
        self.location = Self.parseLocation(message)
        self.traceback = traceback
    }

    public var description: String { message }

    /// The message followed by the traceback, as `lua.c` prints it.
    public var fullDescription: String {
        guard let traceback else { return message }
        return message + "\n" + traceback
    }

    /// Reads `file:line:` from the start of a Lua message.
    static func parseLocation(_ message: String) -> Location? {
        let utf8 = Array(message.utf8.prefix(512))
        var index = 0
        while index < utf8.count {
            guard utf8[index] == UInt8(ascii: ":") else {
                if utf8[index] == UInt8(ascii: "\n") { return nil }
                index += 1
                continue
            }
            var digitsEnd = index + 1
            var line = 0
            while digitsEnd < utf8.count, (48...57).contains(utf8[digitsEnd]), line < 100_000_000 {
                line = line * 10 + Int(utf8[digitsEnd] - 48)
                digitsEnd += 1
            }
            if digitsEnd > index + 1, digitsEnd < utf8.count, utf8[digitsEnd] == UInt8(ascii: ":"),
                index > 0
            {
                let file = String(decoding: utf8[0..<index], as: UTF8.self)
                return Location(file: file, line: line)
            }
            index += 1
        }
        return nil
    }
}

extension LuaError {
    /// The one place where Lua status codes become Swift errors. Pops the error message
    /// that clua_pcall, clua_load or a protected wrapper left on top of `L`.
    static func pop(status: Int32, limit: Int32, from L: OpaquePointer, memoryCap: Int) -> LuaError {
        var length = 0
        let text: String
        if lua_type(L, -1) == LUA_TSTRING, let bytes = lua_tolstring(L, -1, &length) {
            text = String(
                decoding: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self)
        } else {
            text = "(error object is a \(String(cString: lua_typename(L, lua_type(L, -1)))) value)"
        }
        clua_pop(L, 1)
        var message = text
        var traceback: String?
        if let split = text.utf8.firstRange(of: "\nstack traceback:".utf8) {
            message = String(text[..<split.lowerBound])
            traceback = String(text[text.utf8.index(after: split.lowerBound)...])
        }
        let kind: Kind
        switch (status, limit) {
        case (_, Int32(CLUA_LIMIT_BUDGET)): kind = .budget
        case (_, Int32(CLUA_LIMIT_DEADLINE)): kind = .deadline
        case (_, Int32(CLUA_LIMIT_NESTING)): kind = .nesting
        case (LUA_ERRMEM, _), (_, Int32(CLUA_LIMIT_MEMORY)):
            kind = .memory
            message = "memory limit exceeded (\(memoryCap / (1024 * 1024)) MiB): \(message)"
        case (LUA_ERRSYNTAX, _): kind = .syntax
        case (LUA_ERRERR, _): kind = .errorHandler
        default: kind = .runtime
        }
        return LuaError(kind: kind, message: message, traceback: traceback)
    }

    static let closedVM = LuaError(kind: .closed, message: "the Lua state is closed")
    static let releasedReference = LuaError(
        kind: .released, message: "the Lua reference was released")
}
