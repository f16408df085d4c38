/// One entry of the command table: an operation's JSON name, the word people type (the REPL's
/// command, the Lua test API's method), what it takes, what it does, and where it may come
/// from. The REPL's parsing, `help` and completion, the Lua test API and `types/luna.lua`'s
/// `luna.App` methods are all derived from ``all``; ``Command/init(op:fields:)`` checks the
/// fields every way in produces.
package struct CommandSpec: Sendable {
    /// Where a command may come from.
    package struct Surfaces: OptionSet, Sendable {
        package let rawValue: Int
        package init(rawValue: Int) { self.rawValue = rawValue }
        /// The REPL's lines (and `luna repl --json`).
        package static let repl = Surfaces(rawValue: 1)
        /// An inspector page's messages (and `luna go`).
        package static let page = Surfaces(rawValue: 2)
        /// A linked app's messages (`LunaLink`).
        package static let device = Surfaces(rawValue: 4)
        /// The Lua test API (`app:go(…)`).
        package static let test = Surfaces(rawValue: 8)
        /// A step of an exported prototype.
        package static let prototype = Surfaces(rawValue: 16)
        package static let all: Surfaces = [.repl, .page, .device, .test, .prototype]
    }

    /// The name in the JSON form (`"op":"dispatch"`).
    package var op: String
    /// The word typed in the REPL (`go`).
    package var word: String
    /// The Lua test API's method (`app:go`); nil: none.
    package var lua: String?
    package var arguments: [CommandArgument]
    package var help: String
    package var surfaces: Surfaces
    /// One of the REPL's own commands (`help`, `clear`, `quit`): not a session operation.
    package var console = false
    /// Offered in the inspector page's menu: it takes no arguments, and the page shows the
    /// document it answers (a text to read or copy).
    package var menu = false
    /// What the Lua test API's method does, where the REPL's `help` names the REPL's own forms
    /// (`types/luna.lua` shows it; nil: `help`).
    package var luaHelp: String? = nil

    /// `go PATH [--keep]`.
    package var usage: String {
        ([word] + arguments.map(\.usage)).joined(separator: " ")
    }

    /// The entry of `op`.
    package static func named(_ op: String) -> CommandSpec? { byOp[op] }

    /// The entry the REPL's word `word` names.
    package static func typed(_ word: String) -> CommandSpec? { byWord[word] }

    private static let byOp = Dictionary(all.map { ($0.op, $0) }, uniquingKeysWith: { first, _ in first })
    private static let byWord = Dictionary(
        all.filter { $0.surfaces.contains(.repl) }.map { ($0.word, $0) }, uniquingKeysWith: { first, _ in first })

    /// The table, in the order `help` lists it.
    package static let all: [CommandSpec] = {
        typealias A = CommandArgument
        let request = A(key: "request", kind: .text, placeholder: "PATH")
        let keep = A(key: "keep", kind: .option, placeholder: "--keep")
        let live: Surfaces = [.repl, .page, .device, .test]
        let views: Surfaces = [.repl, .page]
        return [
            CommandSpec(
                op: "dispatch", word: "go", lua: "go", arguments: [request, keep],
                help:
                    "dispatch PATH (a line starting with / does the same; --keep: a tab tap that keeps the tab's stack)",
                surfaces: .all,
                luaHelp:
                    "dispatch `request` (`{ keep = true }`: a tab tap that keeps the tab's stack); a failure raises a luna.TestError table"
            ),
            CommandSpec(
                op: "push", word: "push", lua: "push", arguments: [request],
                help:
                    "push the screen PATH matches onto the top stack shown, above what it shows (the same screen again too); back pops it",
                surfaces: .all,
                luaHelp:
                    "push the screen `request` matches onto the top stack shown (the same screen again too); `back` pops it; a failure raises a luna.TestError table"
            ),
            CommandSpec(
                op: "back", word: "back", lua: "back",
                arguments: [A(key: "result", kind: .values, placeholder: "KEY=VALUE", optional: true)],
                help:
                    "the user went back: pop the top stack, or dismiss the top modal (KEY=VALUE: a result handed to the screen under it)",
                surfaces: .all,
                luaHelp:
                    "the user went back: pop the top stack, or dismiss the top modal; `result` (a table of strings, numbers and booleans) is handed to the screen that shows again"
            ),
            CommandSpec(
                op: "close", word: "close", lua: "close", arguments: [],
                help: "close the top sheet: the screen under it shows as it was (its stack, its pushed screens)",
                surfaces: .all),
            CommandSpec(
                op: "sync", word: "sync", lua: "sync", arguments: [request],
                help: "the UI already went to PATH itself: record it, run no structural presenter call",
                surfaces: live,
                luaHelp: "the UI already went to `request` itself: record it, run no structural presenter call"),
            CommandSpec(
                op: "open", word: "open", lua: "open",
                arguments: [
                    A(key: "node", kind: .word, placeholder: "NODE"),
                    A(key: "params", kind: .pairs, placeholder: "KEY=VALUE", optional: true), keep,
                ],
                help: "open the screen NODE, its pattern filled with the values (the rest the query)",
                surfaces: [.repl, .page, .test, .prototype],
                luaHelp:
                    "open the screen with node id `node`, its pattern filled with `params` (the rest become query items), as the page's rows do"
            ),
            CommandSpec(
                op: "tap", word: "tap", lua: "tap", arguments: [A(key: "label", kind: .text, placeholder: "LABEL")],
                help: "press the shown screen's action LABEL (actions = {…}): its flags, then its request",
                surfaces: [.repl, .page, .test, .prototype],
                luaHelp:
                    "press the shown screen's action `label` (`actions = {…}`): its flags, then its request (with `continue = true`, the request a guard kept)"
            ),
            CommandSpec(
                op: "confirm", word: "confirm", lua: "confirm", arguments: [],
                help: "answer a leave guard's question yes: make the change it asked about", surfaces: live),
            CommandSpec(
                op: "cancel", word: "cancel", lua: "cancel", arguments: [],
                help: "answer a leave guard's question no: nothing changes", surfaces: live),
            CommandSpec(
                op: "wait", word: "wait", lua: "wait",
                arguments: [A(key: "seconds", kind: .seconds, placeholder: "SECONDS")],
                help: "move the session's clock: a gate waiting (pending) may time out to its fallback",
                surfaces: [.repl, .page, .test],
                luaHelp:
                    "move the app's clock by `seconds` (nothing sleeps): a gate waiting (`pending`) may time out to its fallback"
            ),
            CommandSpec(
                op: "flag", word: "flag", lua: "flag",
                arguments: [A(key: "name", kind: .assignment(value: "value"), placeholder: "NAME=VALUE")],
                help: "set an app flag (NAME= clears it); the current path is re-resolved", surfaces: .all,
                luaHelp: "set an app flag (`value` nil or \"\" clears it); the current request is resolved again"),
            CommandSpec(
                op: "device", word: "device", lua: "device",
                arguments: [A(key: "device", kind: .choice(Device.allCases.map(\.rawValue)), placeholder: "phone|pad")],
                help: "re-evaluate the script for that device, keeping the state", surfaces: [.repl, .page, .test]),
            CommandSpec(
                op: "reload", word: "reload", lua: "reload", arguments: [], help: "reload the script now",
                surfaces: [.repl, .page, .test]),
            CommandSpec(
                op: "history", word: "history", lua: nil,
                arguments: [A(key: "before", kind: .integer, placeholder: "N", optional: true)],
                help: "every dispatch, back, flag, device change and reload so far (before N: the older page)",
                surfaces: views),
            CommandSpec(
                op: "undo", word: "undo", lua: "undo", arguments: [],
                help: "back to what was on screen before the last action (a travel included)",
                surfaces: [.repl, .page, .test]),
            CommandSpec(
                op: "redo", word: "redo", lua: "redo", arguments: [], help: "forward again to what the last undo left",
                surfaces: [.repl, .page, .test]),
            CommandSpec(
                op: "travel", word: "goto", lua: "travel",
                arguments: [A(key: "index", kind: .integer, placeholder: "N")],
                help: "travel to the state of history entry N", surfaces: [.repl, .page, .test],
                luaHelp: "travel to the state of history entry `index` (the REPL's `goto N`)"),
            CommandSpec(
                op: "reset", word: "reset", lua: "reset", arguments: [],
                help: "back to where the app starts: its initial request (save-test starts here)",
                surfaces: [.repl, .test],
                luaHelp: "the app as `luna.open` made it: a fresh Lua state, at the script's initial request"),
            CommandSpec(
                op: "restore", word: "restore", lua: "restore",
                arguments: [A(key: "state", kind: .text, placeholder: "STRING")],
                help:
                    "show the state a restoration string describes (copy-state's restore, a page address's state=)",
                surfaces: [.repl, .page, .test],
                luaHelp:
                    "show the state a restoration string describes (the state an app saved, a page address's `state=`)"
            ),
            CommandSpec(
                op: "path", word: "path", lua: nil,
                arguments: [
                    A(key: "name", kind: .word, placeholder: "NAME"),
                    A(key: "params", kind: .pairs, placeholder: "KEY=VALUE", optional: true, lists: true),
                ],
                help: "the path of a named route: its parameters fill the pattern, the rest the query",
                surfaces: .repl),
            CommandSpec(
                op: "save-test", word: "save-test", lua: nil,
                arguments: [
                    A(key: "name", kind: .word, placeholder: "NAME"),
                    A(key: "force", kind: .option, placeholder: "--force"),
                ],
                help:
                    "write the actions since the start or the last reset as NAME_test.lua (--force: replace one that exists)",
                surfaces: .repl),
            CommandSpec(
                op: "tree", word: "tree", lua: nil, arguments: [], help: "the presentable tree", surfaces: views),
            CommandSpec(
                op: "state", word: "state", lua: nil, arguments: [],
                help: "the current request, route, parameters and active node chain", surfaces: views),
            CommandSpec(
                op: "routes", word: "routes", lua: nil, arguments: [], help: "the route table, most specific first",
                surfaces: views),
            CommandSpec(
                op: "flow", word: "flow", lua: nil, arguments: [],
                help: "the flow map's edges: push, modal, tab, section and guard", surfaces: views),
            CommandSpec(
                op: "explain", word: "explain", lua: nil, arguments: [request],
                help: "which routes PATH tries, why each fails, which wins and why", surfaces: views),
            CommandSpec(
                op: "flags", word: "flags", lua: nil, arguments: [], help: "list the app flags", surfaces: views),
            CommandSpec(
                op: "copy-state", word: "copy-state", lua: nil, arguments: [],
                help: "the state as JSON to paste into a report: request, restoration string, flags and device",
                surfaces: views, menu: true),
            CommandSpec(
                op: "verify", word: "verify", lua: nil, arguments: [],
                help: "luna verify on the script: every reachable state checked, each finding with its counterexample",
                surfaces: .page, menu: true),
            CommandSpec(
                op: "=", word: "=", lua: nil, arguments: [A(key: "expression", kind: .raw, placeholder: "EXPR")],
                help: "evaluate a Lua expression in the script's environment", surfaces: .repl),
            CommandSpec(
                op: "lua", word: "lua", lua: nil, arguments: [A(key: "chunk", kind: .raw, placeholder: "CHUNK")],
                help: "run a Lua chunk in the script's environment", surfaces: .repl),
            CommandSpec(
                op: "snapshot", word: "snapshot", lua: nil, arguments: [], help: "what a page draws", surfaces: .page),
            CommandSpec(
                op: "canLeave", word: "can-leave", lua: nil,
                arguments: [
                    A(key: "node", kind: .word, placeholder: "NODE"),
                    A(key: "request", kind: .text, placeholder: "PATH", optional: true),
                ],
                help: "what NODE's leave guard would say now to a change to PATH", surfaces: .device),
            CommandSpec(
                op: "help", word: "help", lua: nil, arguments: [], help: "this list", surfaces: .repl, console: true),
            CommandSpec(
                op: "clear", word: "clear", lua: nil, arguments: [],
                help: "clear the terminal (nothing in a pipe or with --json)", surfaces: .repl, console: true),
            CommandSpec(
                op: "quit", word: "quit", lua: nil, arguments: [], help: "leave (Ctrl-D too)", surfaces: .repl,
                console: true),
        ]
    }()
}

/// One thing a command takes: its field in the JSON form, how it is typed, and its name in
/// `usage`.
package struct CommandArgument: Sendable {
    package enum Kind: Sendable, Equatable {
        /// The rest of the line (spaces and all, or one quoted string): a request, a label.
        case text
        /// One word.
        case word
        case integer
        /// A number, 0 or more.
        case seconds
        /// A boolean the REPL writes as a trailing `--name` and Lua in an options table.
        case option
        /// `NAME=VALUE` in the REPL (the field `key` and the field `value`; an empty VALUE is
        /// null), two arguments in Lua.
        case assignment(value: String)
        /// `KEY=VALUE` words: an object of strings (a key given twice: a list).
        case pairs
        /// A result: `KEY=VALUE` words in the REPL (strings), an object of strings, numbers and
        /// booleans in JSON and a table in Lua.
        case values
        /// One of these words.
        case choice([String])
        /// The rest of the line exactly as typed (a Lua chunk).
        case raw
    }

    package var key: String
    package var kind: Kind
    package var placeholder: String
    package var optional = false
    /// For `pairs`: a key given twice is a list of its values (a query list, `tags=a tags=b`);
    /// otherwise a pair's value is one string.
    package var lists = false

    /// `PATH`, `[--keep]`, `[KEY=VALUE]...`.
    var usage: String {
        switch kind {
        case .option: "[\(placeholder)]"
        case .pairs, .values: "[\(placeholder)]..."
        default: optional ? "[\(placeholder)]" : placeholder
        }
    }
}
