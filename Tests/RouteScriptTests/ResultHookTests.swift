import RouteCore
import Testing

@testable import RouteScript

/// A script's side of results (docs/dsl.md, "Results"): `on_result(view, ctx, value)` runs once
/// when a value is handed back, `ctx.result` shows it to the screen's hooks afterwards — so a
/// restoration or a reload shows the screen as it was, without handing it over again.
@Suite struct ResultHookTests {
    static let source = """
        deliveries = 0
        return stack {
          endpoint { "form", title = "Form",
            on_result = function(view, ctx, value)
              deliveries = deliveries + 1
              view.title = "To " .. value.name
              view.amount = value.amount
            end,
            presenter = { update = function(view, ctx)
              view.title = ctx.result and ("To " .. ctx.result.name) or "Form"
            end },
            children = { endpoint { "./picker", title = "Picker" } },
          },
        }
        """

    @Test func onResultRunsOnceAndCtxResultShowsItAfterARestoration() throws {
        let host = RouteScriptHost()
        try host.load(source: Self.source, name: "form.lua")
        _ = try host.dispatch("form/picker")
        let back = try host.back(result: ["name": .string("Ada"), "amount": .integer(50)])
        #expect(back.plan.operations.last?.name == "deliver")
        let form = try #require(host.presentable("form"))
        #expect(form.title == "To Ada")
        #expect(form.attributes["amount"] == .integer(50))
        #expect(try host.evaluate("deliveries") == ["1"])
        // A reload runs update (ctx.result), not on_result.
        _ = try host.reload()
        #expect(try host.evaluate("deliveries") == ["0"], "the reload ran the script afresh, and delivered nothing")
        #expect(host.presentable("form")?.title == "To Ada")
        // A restoration on another host shows it too.
        let other = RouteScriptHost()
        try other.load(source: Self.source, name: "form.lua")
        _ = try other.restore(restoring: host.state.restorationString)
        #expect(other.presentable("form")?.title == "To Ada")
        #expect(try other.evaluate("deliveries") == ["0"])
    }

    @Test func aHookThatFailsFailsTheBackAndNothingChanges() throws {
        let host = RouteScriptHost()
        try host.load(
            source: """
                return stack { endpoint { "form", on_result = function() error("no payee") end,
                  children = { endpoint { "./picker" } } } }
                """, name: "bad.lua")
        _ = try host.dispatch("form/picker")
        let before = host.state
        #expect(throws: (any Error).self) { try host.back(result: ["name": .string("Ada")]) }
        #expect(host.state == before)
        #expect(host.tree?.children.map(\.id) == ["form", "form/picker"])
    }
}
