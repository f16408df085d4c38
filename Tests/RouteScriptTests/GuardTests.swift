import Foundation
import RouteCore
import Testing

@testable import RouteScript

/// Guards on any node gate every endpoint below it, outermost first; explain says what each
/// guard does.
@Suite struct GuardTests {
    static let script = """
        return switcher {
          endpoint { "login", title = "Login" },
          endpoint { "closed", title = "Closed" },
          junction { enabled = function(ctx) return flags.open ~= "no" end, fallback = "closed",
            stack { enabled = function(ctx) return flags.user ~= nil end, fallback = "login",
              endpoint { "inbox", children = {
                endpoint { "./work/:id", redirect = function(ctx) if ctx.params.id == "0" then return "inbox" end end,
                  modals = { endpoint { "./share" } } },
              } },
            },
            stack { redirect = function(ctx) if ctx.query.old then return "inbox" end end,
              endpoint { "about" },
            },
            stack { endpoint { "locked", title = "Locked" }, enabled = function() return false end },
          },
        }
        """

    func host() throws -> RouteScriptHost {
        let host = RouteScriptHost()
        try host.load(source: Self.script, name: "gates.lua")
        return host
    }

    @Test func aGuardOnAContainerGatesEveryEndpointBelowIt() throws {
        let host = try host()
        for request in ["inbox", "inbox/work/42", "inbox/work/42/share"] {
            #expect(try host.dispatch(request).route == "login", "\(request)")
        }
        _ = try host.setFlag("user", "ann")
        #expect(try host.dispatch("inbox/work/42/share").route == "inbox/work/:id/share")
        #expect(try host.dispatch("inbox/work/0").route == "inbox")
    }

    @Test func theOutermostGuardDecidesFirst() throws {
        let host = try host()
        _ = try host.setFlag("open", "no")
        // Both the junction and the stack refuse: the junction's fallback wins.
        #expect(try host.dispatch("inbox/work/42").route == "closed")
        #expect(try host.dispatch("about").route == "closed")
    }

    @Test func redirectsAndDisabledContainers() throws {
        let host = try host()
        #expect(try host.dispatch("about").route == "about")
        #expect(
            try host.dispatch("about?old=1").route == "login", "about redirects to inbox, whose guard sends to login")
        let error = #expect(throws: RouteError.self) { try host.dispatch("locked") }
        #expect(error?.kind == .disabled)
        #expect(error?.message == "route 'locked' (under stack 'stack:locked') is disabled")
    }

    @Test func explainSaysWhichGuardRefusesOrRedirects() throws {
        let host = try host()
        let refused = try host.explain("inbox/work/42")
        #expect(
            refused.guards.map(\.text) == [
                "enabled of junction 'junction:inbox' (gates.lua:4): allows",
                "enabled of stack 'stack:inbox' (gates.lua:5): refuses → fallback 'login'",
                "redirect of endpoint 'inbox/work/:id' (gates.lua:7): not reached",
            ])
        _ = try host.setFlag("user", "ann")
        _ = try host.dispatch("inbox")
        #expect(
            try host.explain("inbox/work/0").guards.last?.text
                == "redirect of endpoint 'inbox/work/:id' (gates.lua:7): redirects → 'inbox'")
        #expect(
            try host.explain("inbox/work/5").guards.last?.text
                == "redirect of endpoint 'inbox/work/:id' (gates.lua:7): returns nil (no redirect)")
        #expect(host.state.request?.path == "inbox", "explain changed nothing")
    }

    /// go_router's login guard: a redirect that returns the location being resolved means
    /// "stay" (it was a redirect loop), on the login screen itself too.
    @Test func aRedirectToWhereItIsMeansStay() throws {
        let host = RouteScriptHost()
        try host.load(
            source: """
                return switcher { redirect = function(ctx)
                    if not flags.user and ctx.path ~= "" then return "login" end
                    if ctx.query.again then return ctx.path .. "?again=" .. ctx.query.again end
                  end,
                  endpoint { "login" }, endpoint { "home" } }
                """, name: "login.lua")
        _ = try host.dispatch("home")
        #expect(host.state.request?.path == "login")
        _ = try host.dispatch("login")
        #expect(host.state.request?.path == "login", "the guard returns 'login' on login: stay")
        _ = try host.setFlag("user", "ada")
        _ = try host.dispatch("home?again=1")
        #expect(host.state.request?.original == "home?again=1")
    }

    /// A flag whose re-dispatch fails is rolled back: later dispatches work as before.
    @Test func aFailedFlagChangeIsRolledBack() throws {
        let host = RouteScriptHost()
        try host.load(
            source: """
                return stack { enabled = function(ctx) if flags.mode == "broken" then error("bad mode") end return true end,
                  endpoint { "home" } }
                """, name: "flag.lua")
        _ = try host.dispatch("home")
        #expect(throws: RouteError.self) { try host.setFlag("mode", "broken") }
        #expect(host.options.flags["mode"] == nil)
        _ = try host.dispatch("home?x=1")
        #expect(host.state.request?.original == "home?x=1")
    }

    /// A fallback is a constant: `check` warns when it matches no route or only the bare
    /// catch-all, and the dispatch error names the fallback and its guard's place.
    @Test func aFallbackThatLeadsNowhereIsLintedAndNamed() throws {
        let host = RouteScriptHost()
        try host.load(
            source: """
                return switcher {
                  stack { id = "mail", enabled = function() return false end, fallback = "signin",
                    endpoint { "inbox" } },
                  endpoint { "home" },
                }
                """, name: "app.lua")
        let findings = Lint(tree: try #require(host.routeTree)).findings().map(\.line)
        #expect(
            findings.contains("app.lua:2: warning: fallback 'signin' of stack 'mail' matches no route"), "\(findings)")
        let error = #expect(throws: RouteError.self) { try host.dispatch("inbox") }
        #expect(error?.kind == .noMatch)
        #expect(
            error?.message.hasPrefix("fallback 'signin' of stack 'mail' (app.lua:2): no route matches 'signin'")
                == true,
            "\(error?.message ?? "")")
    }

    /// A fallback screen learns which request was refused (`ctx.from`), so a login screen
    /// can continue to it; a screen reached directly has none.
    @Test func aFallbackScreenKnowsTheRefusedRequest() throws {
        let host = RouteScriptHost()
        try host.load(
            source: """
                seen = {}
                return switcher {
                  endpoint { "login", presenter = {
                    create = function(ctx) seen[#seen + 1] = tostring(ctx.from) end,
                    update = function(view, ctx) seen[#seen + 1] = tostring(ctx.from) end } },
                  stack { enabled = function() return flags.user ~= nil end, fallback = "login",
                    endpoint { "orders/:id" } },
                }
                """, name: "from.lua")
        _ = try host.dispatch("orders/7?tab=items")
        _ = try host.dispatch("login")
        #expect(try host.evaluate("table.concat(seen, ',')") == ["orders/7?tab=items,orders/7?tab=items,nil"])
    }

    /// The root route is spelled "/" in `ctx.route` as in the JSON and the tables.
    @Test func theRootRouteIsSlashInCtx() throws {
        let host = RouteScriptHost()
        try host.load(
            source: "return stack { endpoint { '', enabled = function(ctx) seen = ctx.route return true end } }",
            name: "root.lua")
        _ = try host.dispatch("/")
        #expect(try host.evaluate("seen") == ["/"])
    }

    /// A node the script places twice (one local used in two stacks) is a node in each place:
    /// its relative pattern, guards and function validators work in both, through reloads, and
    /// each place's guard reports its own node to `luna test`'s coverage.
    @Test func aNodePlacedTwiceIsGuardedInEachPlace() throws {
        var options = RouteScriptOptions()
        let probe = ScriptProbe()
        options.probe = probe
        let host = RouteScriptHost(options: options)
        try host.load(
            source: """
                local detail = endpoint { "./detail/:id", title = "Detail",
                  where = { id = function(id) return id ~= "0" end },
                  enabled = function(ctx) return flags.closed == nil end, fallback = "a",
                  redirect = function(ctx) if ctx.params.id == "9" then return "b" end end }
                return junction {
                  stack { endpoint { "a", children = { detail } } },
                  stack { endpoint { "b", children = { detail } } },
                }
                """, name: "shared.lua")
        for _ in 0..<2 {
            #expect(try host.dispatch("a/detail/1").route == "a/detail/:id")
            #expect(try host.dispatch("b/detail/2").route == "b/detail/:id")
            #expect(try host.dispatch("a/detail/9").route == "b")
            #expect(throws: RouteError.self) { try host.dispatch("b/detail/0") }
            _ = try host.setFlag("closed", "yes")
            #expect(try host.dispatch("b/detail/1").route == "a")
            _ = try host.setFlag("closed", nil)
            try host.reload()
        }
        let tree = try #require(host.routeTree)
        let nodes = ["a/detail/:id", "b/detail/:id"].compactMap { route in
            tree.endpoints.first { $0.definition.displayText == route }?.node
        }
        #expect(nodes.count == 2)
        _ = probe.drain()
        _ = try host.dispatch("a/detail/3")
        _ = try host.dispatch("b/detail/3")
        let guarded = probe.drain().compactMap { event -> Int? in
            if case .guardRan(let node, "enabled", _) = event { return node }
            return nil
        }
        #expect(guarded == nodes)
    }
}

/// A query schema's typed values reach Lua: guards and presenter hooks see integers, numbers,
/// booleans and lists in `ctx.query` (strings for undeclared keys); a function `where` runs.
@Suite struct TypedQueryTests {
    static let script = """
        return stack {
          endpoint { "products", query = {
              page = { "int", default = 1 }, tags = { "string", list = true }, sale = "bool?",
              size = { "number", optional = true, where = function(v) return tonumber(v) > 0 end } },
            enabled = function(ctx) return math.type(ctx.query.page) == "integer" end, fallback = "wrong",
            presenter = { update = function(view, ctx)
              view.title = string.format("%d %s %s %s %s", ctx.query.page, table.concat(ctx.query.tags, "+"),
                tostring(ctx.query.sale), tostring(ctx.query.size), tostring(ctx.query.other))
            end } },
          endpoint { "products", id = "fallback" },
          endpoint { "wrong" },
        }
        """

    @Test func hooksSeeTypedValues() throws {
        let host = RouteScriptHost()
        try host.load(source: Self.script, name: "typed.lua")
        #expect(try host.dispatch("products?page=3&tags=a&tags=b&sale=0&size=2.5&other=x").route == "products")
        #expect(host.tree?.children.first?.title == "3 a+b false 2.5 x")
        #expect(try host.dispatch("products?page=nope").route == "products")
        #expect(host.tree?.children.first?.title == "1  nil nil nil")
        // The function validator refuses: the next route takes it.
        let refused = try host.dispatch("products?size=-1")
        #expect(host.tree?.children.first?.id == "fallback", "\(refused.route)")
    }
}

/// The rows of the leave-guard table a script host adds: a reload and a device change are not
/// asked (a guard that raises when asked would fail them), and a reload drops a question.
@Suite struct LeaveGuardHostTests {
    static let script = """
        return stack {
          endpoint { "home", children = {
            endpoint { "edit", leave = function(ctx, to)
              if flags.strict == "yes" then error("asked") end
              return "Discard?"
            end },
          } },
          endpoint { "other" },
        }
        """

    @Test func reloadAndDeviceChangeAreNotAsked() throws {
        let folder = ScriptFolder()
        let path = folder.write("edit.lua", Self.script)
        let host = try RouteScriptHost(contentsOf: path)
        _ = try host.dispatch("edit")
        _ = try host.dispatch("other")
        #expect(host.pendingQuestion?.text == "Discard?")
        #expect(host.pendingQuestion?.node == "edit")
        // A reload drops the question and asks nothing (the guard would raise).
        _ = try host.setFlag("strict", "yes")
        folder.write("edit.lua", Self.script.replacingOccurrences(of: "\"other\"", with: "\"elsewhere\""))
        _ = try host.reload()
        #expect(host.pendingQuestion == nil)
        #expect(host.state.request?.original == "edit")
        _ = try host.setDevice(.pad)
        #expect(host.state.request?.original == "edit")
        // A dispatch asks, and the guard's error is the dispatch's.
        let error = #expect(throws: RouteError.self) { try host.dispatch("home") }
        #expect(error?.kind == .script)
        #expect(error?.message.contains("asked") == true)
    }
}

/// `pending(…)` from a script: from `enabled` and from `redirect`, with a bad timeout refused;
/// the kept request travels in the restoration string, and a restored app waits again.
@Suite struct ScriptGateTests {
    static let script = """
        return switcher {
          endpoint { "splash" },
          endpoint { "signin" },
          stack { enabled = function() if not flags.session then return pending("splash", { timeout = 2 }) end return true end,
            fallback = "signin", endpoint { "home" } },
          stack { redirect = function() if not flags.session then return luna.pending("splash") end end,
            endpoint { "inbox" } },
          endpoint { "bad", redirect = function() return pending("splash", { timeout = -1 }) end },
        }
        """

    @Test func enabledAndRedirectWaitAndARestoredAppWaitsAgain() throws {
        let host = RouteScriptHost()
        try host.load(source: Self.script, name: "gate.lua")
        #expect(try host.dispatch("home").route == "splash")
        #expect(host.waitingGate?.request == "home" && host.waitingGate?.secondsLeft == 2)
        #expect(try host.dispatch("inbox").route == "splash")
        #expect(host.waitingGate?.request == "inbox" && host.waitingGate?.secondsLeft == nil)
        let saved = host.state.restorationString
        #expect(try host.advanceClock(by: 60) == nil, "a gate without a timeout waits for a flag")
        // A restored app (a new host) waits again for the kept request.
        let other = RouteScriptHost()
        try other.load(source: Self.script, name: "gate.lua")
        _ = try other.restore(restoring: saved)
        #expect(other.state.request?.original == "splash" && other.waitingGate?.request == "inbox")
        _ = try other.setFlag("session", "yes")
        #expect(other.state.request?.original == "inbox")
        let error = #expect(throws: RouteError.self) { try host.dispatch("bad") }
        #expect(error?.message.contains("pending: timeout is a number of seconds") == true, "\(error?.message ?? "")")
    }
}

/// A query key's `where` runs once per dispatch: the matcher's check fills the query the
/// resolution keeps, and nothing checks it again.
@Suite struct QueryCheckOnceTests {
    @Test func aQueryWhereFunctionRunsOncePerDispatch() throws {
        let host = RouteScriptHost()
        try host.load(
            source: """
                checks = 0
                return stack {
                  endpoint { "products", query = { size = { "number", default = 1,
                    where = function(v) checks = checks + 1 return tonumber(v) > 0 end } } },
                }
                """, name: "once.lua")
        _ = try host.dispatch("products?size=2")
        #expect(try host.evaluate("checks") == ["1"])
        _ = try host.dispatch("products?size=-3")
        #expect(try host.evaluate("checks") == ["2"])
        #expect(host.state.request?.query == ["size": "1"], "the refused value took the default")
        _ = try host.dispatch("products")
        #expect(try host.evaluate("checks") == ["2"], "no value, no check")
    }
}
