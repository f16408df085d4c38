import LuaHost
import RouteCore
import Testing

@testable import RouteScript

/// A script whose hooks log every call to a global list, for checking order and arguments.
let loggingScript = """
    log = {}
    local function hooks(extra)
      local h = {
        create = function(ctx) log[#log + 1] = 'create ' .. ctx.id .. ' ' .. ctx.path end,
        unwind = function(view) log[#log + 1] = 'unwind ' .. view.id end,
      }
      for k, v in pairs(extra or {}) do h[k] = v end
      return h
    end
    return junction { presenter = hooks {
        setOptions = function(view, options) log[#log + 1] = 'setOptions ' .. view.id .. ' ' .. #options end,
        select = function(view, option) log[#log + 1] = 'select ' .. view.id .. ' ' .. option.id end },
      stack { presenter = hooks { setStack = function(view, items)
          local ids = {} for i, item in ipairs(items) do ids[i] = item.id end
          log[#log + 1] = 'setStack ' .. view.id .. ' ' .. table.concat(ids, ',') end },
        endpoint { "list", presenter = hooks {
            update = function(view, ctx) log[#log + 1] = 'update ' .. view.id .. ' ' .. (ctx.query.q or '') end,
            presentModal = function(view, modal) log[#log + 1] = 'presentModal ' .. view.id .. ' ' .. modal.id end,
            dismissModal = function(view, modal) log[#log + 1] = 'dismissModal ' .. view.id .. ' ' .. modal.id end },
          modals = { endpoint { "list/new", presenter = hooks() } },
          children = { endpoint { "list/:id", presenter = hooks {
              update = function(view, ctx) view.badge = tonumber(ctx.params.id); log[#log + 1] = 'update ' .. view.id end } } } },
      },
      endpoint { "other", presenter = hooks() },
    }
    """

func takeLog(_ host: RouteScriptHost) throws -> [String] {
    let values = try host.evaluate("table.concat(log, '\\n')")
    _ = try host.evaluate("(function() log = {} end)()")
    return values.first.map { $0.split(separator: "\n").map(String.init) } ?? []
}

@Suite struct PresenterTests {
    @Test func hooksRunInPlanOrderAfterTheStructuralChange() throws {
        let folder = ScriptFolder()
        let host = try RouteScriptHost(contentsOf: folder.write("log.lua", loggingScript))
        let first = try host.dispatch("list?q=a")
        #expect(
            first.plan.operations.map(\.text) == [
                "create root", "create stack:list", "create list", "create other",
                "setStack stack:list [list]",
                "setOptions root [stack:list, other]", "select root 0 (stack:list)",
            ])
        #expect(
            try takeLog(host) == [
                "create root ", "create stack:list ", "create list list", "update list a",
                "create other other",
                "setStack stack:list list", "setOptions root 2", "select root stack:list",
            ])
        _ = try host.dispatch("list/7")
        #expect(
            try takeLog(host) == ["create list/:id list/7", "update list/:id", "setStack stack:list list,list/:id"])
        #expect(host.tree?.children[0].children[1].attributes["badge"] == .integer(7))
        _ = try host.dispatch("list/new")
        #expect(
            try takeLog(host) == [
                "create list/new list/new", "setStack stack:list list", "presentModal list list/new", "unwind list/:id",
            ])
        _ = try host.dispatch("other")
        #expect(
            try takeLog(host) == [
                "dismissModal list list/new", "select root other", "unwind list/new",
            ])
    }

    @Test func viewHandlesReadAndSetAttributes() throws {
        let folder = ScriptFolder()
        let path = folder.write(
            "views.lua",
            """
            return stack { endpoint { "a", title = "A", presenter = {
              update = function(view, ctx)
                assert(view.kind == 'screen' and view.id == 'a' and view.title == 'A' and view.route == 'a')
                view.title = 'Changed'
                view.count = 2; view.ratio = 0.5; view.on = true; view.label = 'x'
                view.label = nil
                assert(tostring(view) == 'view(screen a)')
                assert(getmetatable(view) == false)
              end } } }
            """)
        let host = try RouteScriptHost(contentsOf: path)
        _ = try host.dispatch("a")
        let screen = try #require(host.tree?.children.first)
        #expect(screen.title == "Changed")
        #expect(screen.attributes == ["count": .integer(2), "ratio": .number(0.5), "on": .boolean(true)])
        #expect(screen.json.contains(#""attributes":{"count":2,"on":true,"ratio":0.5}"#))
    }

    @Test(arguments: [
        ("view.kind = 'x'", "view.kind is read-only"),
        ("view.title = 3", "view.title must be a string (got number)"),
        ("view.data = {}", "view.data must be a string, number or boolean (got table)"),
        ("view[1] = 'x'", "view attributes are named by strings, not number"),
    ])
    func viewHandlesRefuseBadWrites(statement: String, message: String) throws {
        let folder = ScriptFolder()
        let path = folder.write(
            "views.lua", "return stack { endpoint { 'a', presenter = { update = function(view) \(statement) end } } }")
        let host = try RouteScriptHost(contentsOf: path)
        let error = #expect(throws: RouteError.self) { try host.dispatch("a") }
        #expect(error?.kind == .script)
        #expect(error?.message.hasPrefix("views.lua:1: \(message)") == true, "\(error?.message ?? "")")
        #expect(host.tree == nil)
    }

    @Test func hostPresentersRunByName() throws {
        let folder = ScriptFolder()
        let path = folder.write("host.lua", "return stack { endpoint { 'books/:id', presenter = 'BookScreen' } }")
        let host = RouteScriptHost()
        var book = HostPresenter<HeadlessPresentable>()
        book.create = { view, context in view.title = "Book " + (context.params["id"] ?? "?") }
        book.update = { view, context in view.attributes["device"] = .string(context.device.rawValue) }
        host.registerPresenter("BookScreen", book)
        try host.load(contentsOf: path)
        _ = try host.dispatch("books/9")
        #expect(host.tree?.children.first?.title == "Book 9")
        #expect(host.tree?.children.first?.attributes["device"] == .string("phone"))
    }

    @Test func createReturnsAttributes() throws {
        let folder = ScriptFolder()
        let path = folder.write(
            "attrs.lua",
            "return stack { endpoint { 'a', presenter = function(ctx) return { title = 'T', n = 1 } end } }")
        let host = try RouteScriptHost(contentsOf: path)
        _ = try host.dispatch("a")
        #expect(host.tree?.children.first?.title == "T")
        #expect(host.tree?.children.first?.attributes == ["n": .integer(1)])
    }

    @Test func contextHasEverythingTheSpecLists() throws {
        let folder = ScriptFolder()
        let path = folder.write(
            "ctx.lua",
            """
            return stack { endpoint { 'books/:id', name = 'book', presenter = { update = function(view, ctx)
              view.summary = table.concat({ ctx.path, ctx.params.id, ctx.query.t, ctx.fragment, ctx.route, ctx.name,
                                            ctx.flags.beta, ctx.device.idiom, tostring(ctx.flags == flags) }, '|')
            end } } }
            """)
        var options = RouteScriptOptions()
        options.flags = ["beta": "on"]
        options.device = .pad
        let host = try RouteScriptHost(contentsOf: path, options: options)
        _ = try host.dispatch("/books/5?t=x#frag")
        #expect(
            host.tree?.children.first?.attributes["summary"] == .string("books/5|5|x|frag|books/:id|book|on|pad|true"))
    }
}

@Suite struct ContextCacheTests {
    @Test func ctxIsBuiltOncePerDispatchAndSharesFlagsAndDevice() throws {
        let folder = ScriptFolder()
        let path = folder.write(
            "once.lua",
            """
            same = {}
            return stack { endpoint { 'a',
              enabled = function(ctx) seen = ctx return true end,
              redirect = function(ctx) same[#same + 1] = tostring(ctx == seen and ctx.flags == flags and ctx.device == device) end } }
            """)
        let host = try RouteScriptHost(contentsOf: path)
        _ = try host.dispatch("a")
        _ = try host.dispatch("a?x=1")
        #expect(try host.evaluate("table.concat(same, ',')") == ["true,true"])
        #expect(try host.evaluate("seen.query.x") == ["1"])
    }

    /// A screen's `create` and `update` of one dispatch share its `ctx`; the next dispatch
    /// makes a new one. A screen below the match gets its own parameters and the path they
    /// fill in.
    @Test func aScreensHooksShareCtxWithinADispatch() throws {
        let folder = ScriptFolder()
        let path = folder.write(
            "screens.lua",
            """
            seen = {}
            local function show(ctx)
              local names = {}
              for name, value in pairs(ctx.params) do names[#names + 1] = name .. "=" .. value end
              table.sort(names)
              return ctx.path .. " " .. table.concat(names, ",") .. " " .. ctx.route .. " " .. ctx.id
            end
            return stack { endpoint { "users/:user", presenter = { update = function(view, ctx) seen[#seen + 1] = show(ctx) end },
              children = { endpoint { "users/:user/posts/:post", name = "post",
                presenter = { create = function(ctx) created = ctx end,
                              update = function(view, ctx) seen[#seen + 1] = tostring(ctx == created) .. " " .. show(ctx) end } } } } }
            """)
        let host = try RouteScriptHost(contentsOf: path)
        _ = try host.dispatch("users/ann/posts/7")
        _ = try host.dispatch("users/ann/posts/8?x=1")
        let seen = try host.evaluate("table.concat(seen, '|')")
        #expect(
            seen == [
                "users/ann user=ann users/:user users/:user|true users/ann/posts/7 post=7,user=ann users/:user/posts/:post users/:user/posts/:post"
                    + "|false users/ann/posts/8 post=8,user=ann users/:user/posts/:post users/:user/posts/:post"
            ])
        #expect(try host.evaluate("created.params.post .. tostring(created.query.x)") == ["7nil"])
    }
}
