import RouteCore
import Testing

@testable import RouteScript

/// A script's Lua state lives as long as something uses the script, and no longer. Its
/// guards, redirects and function validators are closures that call the state, and the
/// declarations holding them belong to the nodes the state holds: kept there after the tree
/// was built, they made a cycle through the state, and a script with any of them was never
/// freed — not when its host was released, not when `load` replaced it, not when its load
/// failed after its hooks were made (a reload closes its old state explicitly, which hid it).
@Suite struct StateLifetimeTests {
    /// Lives as long as the state that holds it (in its `print` output closure).
    final class Witness: Sendable {}

    /// Scripts with each kind of hook (and one with none), and a request each dispatches.
    static let scripts: [(script: String, request: String)] = [
        (
            "return junction { enabled = function() return true end, fallback = 'a', stack { endpoint { 'b' } }, endpoint { 'a' } }",
            "b"
        ),
        ("return stack { redirect = function() return nil end, endpoint { 'b' } }", "b"),
        ("return stack { endpoint { 'b/:id', where = { id = function(v) return v ~= '' end } } }", "b/7"),
        (
            "return stack { endpoint { 'b/:id', enabled = function() return true end, fallback = 'c', where = { id = '[0-9]+' } }, endpoint { 'c' } }",
            "b/7"
        ),
        ("return stack { endpoint { 'b' } }", "b"),
        // A guard (its hook holds the script's callbacks) and a presenter hook (whose `ctx` the
        // callbacks keep for the dispatch): the kept context must not hold the tree.
        (
            "return stack { endpoint { 'b/:id', enabled = function() return true end, fallback = 'c', presenter = { update = function(view, ctx) end } }, endpoint { 'c' } }",
            "b/7"
        ),
    ]

    /// Runs `body` with options whose state keeps a new witness alive; whether the witness
    /// was freed once `body` returned (and everything it made was released).
    static func freed(_ body: (RouteScriptOptions) throws -> Void) rethrows -> Bool {
        weak var released: Witness?
        do {
            let witness = Witness()
            released = witness
            var options = RouteScriptOptions()
            options.output = { [witness] _ in _ = witness }
            try body(options)
        }
        return released == nil
    }

    @Test(arguments: scripts.indices)
    func aReleasedHostFreesItsState(index: Int) throws {
        let freed = try Self.freed { options in
            let host = RouteScriptHost(options: options)
            try host.load(source: Self.scripts[index].script, name: "t.lua")
            _ = try host.dispatch(Self.scripts[index].request)  // the hooks ran
        }
        #expect(freed)
    }

    @Test(arguments: scripts.indices)
    func aDroppedScriptFreesItsState(index: Int) throws {
        var built = false
        let freed = try Self.freed { options in
            let loaded = try LoadedScript(
                source: Self.scripts[index].script, name: "t.lua", folder: ".", path: "", options: options,
                hostPresenters: [])
            built = !loaded.tree.nodes.isEmpty
        }
        #expect(built && freed)
    }

    /// The tree refuses the script (two nodes with one id) after the guard was made.
    @Test func aLoadThatFailedAfterItsHooksFreesItsState() {
        var refusal: RouteScriptError?
        let freed = Self.freed { options in
            refusal = #expect(throws: RouteScriptError.self) {
                _ = try LoadedScript(
                    source: """
                        return stack { endpoint { 'b', id = 'x', enabled = function() return true end, fallback = 'c' },
                                       endpoint { 'c', id = 'x' } }
                        """, name: "t.lua", folder: ".", path: "", options: options, hostPresenters: [])
            }
        }
        #expect(refusal?.message.contains("x") == true)
        #expect(freed)
    }
}
