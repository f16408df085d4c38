import Testing

@testable import RouteCore

/// The command table and its one JSON form: every operation reads back what it writes, in
/// JSON and as the REPL's words, and an argument's rules are the same wherever it comes from.
@Suite struct CommandTests {
    /// One command of every operation the table has (several shapes for those with options).
    static let samples: [Command] = [
        .dispatch("books/42"), .dispatch("home", keepStack: true), .dispatch("say \"hi\" é/日本?q=a b#top"),
        .sync("books"), .push("books/7"), .open(node: "books/:id", params: ["id": "42", "q": "a b"]),
        .open(node: "home", params: [:], keepStack: true), .back, .close,
        .returning(["payee": .string("ada"), "amount": .integer(50), "urgent": .boolean(true)]), .confirm, .cancel,
        .tap("Sign in"), .wait(2),
        .wait(0.5), .undo, .redo, .travel(3), .reset, .restore(#"{"v":2,"r":"books"}"#), .flag("signedIn", "yes"),
        .flag("beta", nil), .device(.pad),
        .reload, .explain("books/x"), .state, .tree, .routes, .flow, .flags, .history(), .history(before: 40),
        .path("book", ["id": "7", "title": "Dune Messiah"]),
        .path("search", ["tags": "b"], lists: ["tags": ["a", "b"]]),
        .recording("books_flow"), .recording("x", force: true), .evaluate("return 1"), .snapshot(routes: true),
        .canLeave(node: "transfer", request: "accounts"), .canLeave(node: "transfer", request: nil), .copyState,
        .verify,
    ]

    @Test func theSamplesCoverEveryOperation() {
        let ops = Set(Self.samples.map(\.op))
        let table = Set(CommandSpec.all.filter { !$0.console && $0.op != "=" }.map(\.op))
        #expect(ops == table)
    }

    @Test(arguments: samples) func theJSONFormReadsBack(command: Command) throws {
        let message = try JSONValue.parse(command.json)
        #expect(try Command(message: message, from: .all) == command, "\(command.json)")
        // A device's message names the operation `type`; an id is carried beside it.
        let device = try JSONValue.parse(command.message(key: "type", id: 7))
        #expect(device["id"]?.integer == 7)
        #expect(try Command(message: device, key: "type", from: .all) == command)
    }

    @Test(arguments: samples) func theREPLLineReadsBack(command: Command) throws {
        guard let spec = CommandSpec.named(command.op), spec.surfaces.contains(.repl) else { return }
        let line = CommandSpec.line(command)
        let words = line.dropFirst(spec.word.count)
        let read = try Command(op: spec.op, fields: try spec.fields(typed: String(words)))
        if case .returning(let result) = command {
            // The REPL types a result's values as strings (Lua and JSON keep numbers and booleans).
            #expect(read == .returning(result.mapValues { .string($0.description) }), "\(line)")
            return
        }
        #expect(read == command, "\(line)")
    }

    /// A value the table does not allow is refused alike from a page (JSON) and from Lua
    /// (positional values), with the field named; the REPL's words cannot even say it.
    @Test func anArgumentsRulesAreTheSameEverywhere() throws {
        let flag = try #require(CommandSpec.named("flag"))
        let fromPage = #expect(throws: CommandError.self) {
            try Command(message: try JSONValue.parse(#"{"op":"flag","name":"beta","value":1}"#), from: .page)
        }
        let fromLua = #expect(throws: CommandError.self) {
            try Command(op: "flag", fields: try flag.fields(positional: [.string("beta"), .number("1")]))
        }
        #expect(fromPage?.message == #"flag's "value" is a string or null"#)
        #expect(fromLua?.message == fromPage?.message)
        // An empty value clears the flag, whichever way it comes.
        #expect(try Command(op: "flag", fields: try flag.fields(typed: "beta=")) == .flag("beta", nil))
        #expect(
            try Command(op: "flag", fields: try flag.fields(positional: [.string("beta"), .string("")]))
                == .flag("beta", nil))
        #expect(
            try Command(message: try JSONValue.parse(#"{"op":"flag","name":"beta","value":""}"#), from: .page)
                == .flag("beta", nil))
        // A key given twice is a list only where the argument takes lists (`path`'s query lists):
        // `open` says its parameters are strings.
        let open = try #require(CommandSpec.named("open"))
        let twice = #expect(throws: CommandError.self) {
            try Command(op: "open", fields: try open.fields(typed: "books/:id id=1 id=2"))
        }
        #expect(twice?.message == #"open's "params" are strings"#)
        let path = try #require(CommandSpec.named("path"))
        #expect(
            try Command(op: "path", fields: try path.fields(typed: "search tags=a tags=b"))
                == .path("search", ["tags": "b"], lists: ["tags": ["a", "b"]]))
        // A name with "=" is refused by the decoder for everyone.
        #expect(throws: CommandError.self) {
            try Command(op: "flag", fields: try flag.fields(positional: [.string("a=b"), .string("c")]))
        }
        // Seconds: a number, 0 or more, from any side.
        let wait = try #require(CommandSpec.named("wait"))
        #expect(throws: CommandError.self) {
            try Command(op: "wait", fields: try wait.fields(positional: [.number("-1")]))
        }
        #expect(throws: CommandError.self) { try wait.fields(typed: "-1") }
        #expect(throws: CommandError.self) { try wait.fields(typed: "soon") }
        // Options: a REPL `--keep`, a Lua options table, a JSON `keep`.
        let go = try #require(CommandSpec.named("dispatch"))
        #expect(
            try Command(op: "dispatch", fields: try go.fields(typed: "home --keep"))
                == .dispatch("home", keepStack: true))
        #expect(
            try Command(
                op: "dispatch", fields: try go.fields(positional: [.string("home"), .object([("keep", .bool(true))])]))
                == .dispatch("home", keepStack: true))
        let unknown = #expect(throws: CommandError.self) {
            try go.fields(positional: [.string("home"), .object([("kep", .bool(true))])])
        }
        #expect(unknown?.message == "go: unknown option 'kep' (options: keep)")
        let typo = #expect(throws: CommandError.self) { try go.fields(typed: "home --kep") }
        #expect(typo?.message == "unknown option '--kep' (did you mean '--keep'?)")
        #expect(throws: CommandError.self) { try go.fields(positional: [.string("a"), .null, .string("extra")]) }
    }

    /// What a surface may send is the table's: a page never runs Lua or writes a test file; a
    /// device sends only what a linked app does.
    @Test func eachSurfaceSendsOnlyItsOperations() throws {
        for (op, surface) in [
            ("lua", CommandSpec.Surfaces.page), ("save-test", .page), ("path", .page), ("tap", .device),
            ("undo", .device), ("reload", .device), ("canLeave", .page),
        ] {
            let refused = #expect(throws: CommandError.self) {
                try Command(
                    message: .object([
                        ("op", .string(op)), ("chunk", .string("os.exit()")), ("name", .string("x")),
                        ("label", .string("x")), ("node", .string("x")),
                    ]), from: surface)
            }
            #expect(refused?.message.hasPrefix("unknown op '\(op)'") == true, "\(op)")
        }
        #expect(
            try Command(message: try JSONValue.parse(#"{"op":"tap","label":"Sign in"}"#), from: .page)
                == .tap("Sign in"))
        #expect(
            try Command(message: try JSONValue.parse(#"{"type":"canLeave","node":"t"}"#), key: "type", from: .device)
                == .canLeave(node: "t", request: nil))
    }

    /// The REPL's words: quotes, pairs given twice (a list), and what is left over.
    @Test func theREPLsWords() throws {
        let path = try #require(CommandSpec.typed("path"))
        #expect(
            try Command(op: "path", fields: try path.fields(typed: #"book id=7 "title=Dune Messiah""#))
                == .path("book", ["id": "7", "title": "Dune Messiah"]))
        #expect(
            try Command(op: "path", fields: try path.fields(typed: "search tags=a tags=b"))
                == .path("search", ["tags": "b"], lists: ["tags": ["a", "b"]]))
        #expect(throws: CommandError.self) { try path.fields(typed: #"book "id=7"#) }
        #expect(throws: CommandError.self) { try path.fields(typed: "book seven") }
        let travel = try #require(CommandSpec.typed("goto"))
        #expect(throws: CommandError.self) { try travel.fields(typed: "3 4") }
        #expect(CommandSpec.line(.open(node: "a b", params: ["q": "x y"])) == "open 'a b' 'q=x y'")
        #expect(CommandSpec.typed("can-leave") == nil, "a device's question, not a REPL command")
    }
}
