import RouteCore
import Testing

@testable import RouteScript

/// Deep links are untrusted input: no validator or whole-path regex can be made to backtrack.
/// Before Luna's own engine, `(a+)+$` took 3.3 s at 16 `a`s and did not finish at 20.
@Suite struct RegexSafetyTests {
    @Test func catastrophicValidatorsAnswerInOnePass() throws {
        let folder = ScriptFolder()
        let path = folder.write(
            "redos.lua",
            """
            return stack {
              endpoint { "a/:id", where = { id = "(a+)+$" } },
              endpoint { "b/:id", where = { id = "(a|aa)+b" } },
              endpoint { "c/:id", where = { id = "(.*a){12}" } },
              endpoint { regex = "d/(?<x>(a+)+)$" },
            }
            """)
        let host = try RouteScriptHost(contentsOf: path)
        let attack = String(repeating: "a", count: 8_000) + "!"
        for prefix in ["a", "b", "c", "d"] {
            let error = #expect(throws: RouteError.self) { try host.dispatch("\(prefix)/\(attack)") }
            #expect(error?.kind == .noMatch, "\(prefix): \(error?.message ?? "")")
        }
        _ = try host.dispatch("a/aaaa")
        #expect(host.state.request?.path == "a/aaaa")
        _ = try host.dispatch("d/aaa")
        #expect(host.state.params["x"] == "aaa")
    }
}
