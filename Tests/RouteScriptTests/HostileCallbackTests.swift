import LuaHost
import RouteCore
import Testing

@testable import RouteScript

@Suite struct HostileCallbackTests {
    /// A script with one hostile hook at `books/:id`; `books` is harmless.
    static func host(
        _ hook: String, where place: String = "update", deadline: Duration = .milliseconds(30)
    ) throws -> (RouteScriptHost, ScriptFolder) {
        let folder = ScriptFolder()
        let path = folder.write(
            "hostile.lua",
            """
            return stack { endpoint { "books", children = {
              endpoint { "./:id", presenter = { \(place) = function(view, ctx)
                \(hook)
              end } } } } }
            """)
        var options = RouteScriptOptions()
        options.callLimits = LuaLimits(instructions: 0, deadline: deadline)
        options.memoryLimit = 16 * 1024 * 1024
        return (try RouteScriptHost(contentsOf: path, options: options), folder)
    }

    @Test(arguments: [
        ("while true do end", RouteError.Kind.script, "hostile.lua:3: deadline exceeded"),
        ("error('no book')", .script, "hostile.lua:3: no book"),
        // A tree of coroutines that catch their children's errors (ran 13 s for a 100 ms hook).
        (
            "local function node(d) if d == 0 then while true do end end for i = 1, 20 do coroutine.resume(coroutine.create(node), d - 1) end end node(5)",
            .script, "hostile.lua:3: deadline exceeded"
        ),
        ("string.find(('('):rep(256), '.-.-.-%b()')", .script, "hostile.lua:3: deadline exceeded"),
        ("io.open('/etc/passwd')", .script, "hostile.lua:3: attempt to index a nil value (global 'io')"),
        ("os.execute('true')", .script, "hostile.lua:3: attempt to call a nil value (field 'execute')"),
        (
            "error(setmetatable({}, { __tostring = function() while true do end end }))", .script,
            "(error object is a table value)"
        ),
    ])
    func hostileHooksAbortTheDispatchAndLeaveEverythingIntact(
        hook: String, kind: RouteError.Kind, message: String
    ) throws {
        let (host, folder) = try Self.host(hook)
        _ = folder
        _ = try host.dispatch("books")
        let stateBefore = host.state
        let treeBefore = host.tree?.rendered()
        let error = #expect(throws: RouteError.self) { try host.dispatch("books/1") }
        #expect(error?.kind == kind)
        #expect(error?.message.hasPrefix(message) == true, "\(error?.message ?? "")")
        #expect(host.state == stateBefore)
        #expect(host.tree?.rendered() == treeBefore)
        // The host goes on: another dispatch works, and so does Lua.
        _ = try host.dispatch("books?again=1")
        #expect(host.state.request?.query == ["again": "1"])
        #expect(try host.evaluate("1 + 1") == ["2"])
    }

    /// A hook that allocates without end stops at the memory cap, and the host goes on. The
    /// deadline is far off so that only the cap can stop it: under the 30 ms deadline of the
    /// other hostile hooks, a busy CI machine reached the deadline first.
    @Test func aRunawayAllocationStopsAtTheMemoryCap() throws {
        let (host, folder) = try Self.host("local s = 'x' while true do s = s .. s end", deadline: .seconds(10))
        _ = folder
        _ = try host.dispatch("books")
        let stateBefore = host.state
        let error = #expect(throws: RouteError.self) { try host.dispatch("books/1") }
        #expect(error?.kind == .script)
        #expect(error?.message.hasPrefix("memory limit exceeded (16 MiB)") == true, "\(error?.message ?? "")")
        #expect(host.state == stateBefore)
        _ = try host.dispatch("books?again=1")
        #expect(try host.evaluate("1 + 1") == ["2"])
    }

    @Test func aHookErrorCarriesATraceback() throws {
        let (host, folder) = try Self.host("error('no book')")
        _ = folder
        let error = #expect(throws: RouteError.self) { try host.dispatch("books/1") }
        #expect(error?.message.contains("stack traceback:") == true)
        #expect(error?.message.contains("hostile.lua:3: in function") == true)
    }

    @Test func aFailingCreateLeavesNoHalfBuiltTree() throws {
        let (host, folder) = try Self.host("error('create failed')", where: "create")
        _ = folder
        _ = try host.dispatch("books")
        let before = host.tree?.rendered()
        #expect(throws: RouteError.self) { try host.dispatch("books/2") }
        #expect(host.tree?.rendered() == before)
        #expect(host.tree?.children.count == 1)
    }

    /// A hook that fails after the plan already changed presentables (a stack popped, a
    /// modal attached, a title set through a view handle): every change is put back.
    @Test func aFailingHookUndoesWhatTheDispatchAlreadyChanged() throws {
        let folder = ScriptFolder()
        let path = folder.write(
            "undo.lua",
            """
            return stack { title = "S",
              endpoint { "a", title = "A",
                presenter = { presentModal = function(view, modal)
                  view.title = "touched"; view.badge = 3; modal.title = "touched too"
                  error("no modal today")
                end },
                children = { endpoint { "./b", title = "B" } },
                modals = { endpoint { "./m", title = "M" } } } }
            """)
        let host = try RouteScriptHost(contentsOf: path)
        _ = try host.dispatch("a")
        _ = try host.dispatch("a/b")
        let before = host.tree?.rendered()
        let stateBefore = host.state
        for _ in 0..<2 {
            let error = #expect(throws: RouteError.self) { try host.dispatch("a/m") }
            #expect(error?.message.hasPrefix("undo.lua:5: no modal today") == true, "\(error?.message ?? "")")
            #expect(host.tree?.rendered() == before)
            #expect(host.tree?.children.map(\.id) == ["a", "a/b"])
            #expect(host.tree?.children.first?.title == "A")
            #expect(host.tree?.children.first?.attributes["badge"] == nil)
            #expect(host.tree?.children.first?.modal == nil)
            #expect(host.state == stateBefore)
        }
        // Changes made by successful dispatches stay (the journal only undoes a failed one).
        _ = try host.dispatch("a")
        #expect(host.tree?.children.map(\.id) == ["a"])
    }

    /// Going back pops the stack through `setStack` before the state syncs; a hook that
    /// fails there undoes the pop too.
    @Test func aFailingSetStackOnBackLeavesTheStackAsItWas() throws {
        let folder = ScriptFolder()
        let path = folder.write(
            "back.lua",
            """
            return stack { title = "S",
              presenter = { setStack = function(view, items) if #items < (depth or 0) then error("no pop") end depth = #items end },
              endpoint { "a", title = "A", children = { endpoint { "./b", title = "B" } } } }
            """)
        let host = try RouteScriptHost(contentsOf: path)
        _ = try host.dispatch("a")
        _ = try host.dispatch("a/b")
        let before = host.tree?.rendered()
        let stateBefore = host.state
        let error = #expect(throws: RouteError.self) { try host.back() }
        #expect(error?.message.hasPrefix("back.lua:2: no pop") == true, "\(error?.message ?? "")")
        #expect(host.tree?.children.map(\.id) == ["a", "a/b"])
        #expect(host.tree?.rendered() == before)
        #expect(host.state == stateBefore)
    }

    @Test func guardsAndValidatorsThatFailAreScriptErrors() throws {
        let folder = ScriptFolder()
        let path = folder.write(
            "guards.lua",
            """
            return stack {
              endpoint { "a/:x", where = { x = function(v) if v == 'boom' then error('bad validator') end return v == 'ok' end } },
              endpoint { "b", redirect = function() return 42 end },
              endpoint { "c", enabled = function() while true do end end },
            }
            """)
        var options = RouteScriptOptions()
        options.callLimits = LuaLimits(instructions: 0, deadline: .milliseconds(20))
        let host = try RouteScriptHost(contentsOf: path, options: options)
        #expect(try host.dispatch("a/ok").resolution.params == ["x": "ok"])
        let validator = #expect(throws: RouteError.self) { try host.dispatch("a/boom") }
        #expect(validator?.message.hasPrefix("guards.lua:2: bad validator") == true)
        let redirect = #expect(throws: RouteError.self) { try host.dispatch("b") }
        #expect(
            redirect?.message == "guards.lua:3: endpoint: redirect must return a path, nil or pending(…), not number")
        let loop = #expect(throws: RouteError.self) { try host.dispatch("c") }
        #expect(loop?.message.hasPrefix("guards.lua:4: deadline exceeded") == true)
        #expect(host.state.request?.path == "a/ok")
    }

    @Test func reentrantDispatchFromAHostPresenterIsRefusedAndTheOuterOneCompletes() throws {
        let folder = ScriptFolder()
        let path = folder.write("re.lua", "return stack { endpoint { 'a', presenter = 'Sneaky' }, endpoint { 'b' } }")
        let host = RouteScriptHost()
        final class Box: @unchecked Sendable { var error: (any Error)? }
        let box = Box()
        var sneaky = HostPresenter<HeadlessPresentable>()
        sneaky.create = { [unowned host] _, _ in
            do { _ = try host.dispatch("b") } catch { box.error = error }
            do { _ = try host.reload() } catch { if box.error == nil { box.error = error } }
        }
        host.registerPresenter("Sneaky", sneaky)
        try host.load(contentsOf: path)
        _ = try host.dispatch("a")
        #expect((box.error as? RouteScriptError)?.kind == .reentrant)
        #expect(host.state.request?.path == "a")
    }
}
