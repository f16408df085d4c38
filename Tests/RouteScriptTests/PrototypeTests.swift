import Foundation
import RouteCore
import RouteScript
import Testing

/// What a prototype is drawn from: sample parameter values and the flow map.
struct PrototypeTests {
    @Test func sampleValuesGiveEveryCombinationInOrder() throws {
        let host = RouteScriptHost()
        try host.load(
            source: """
                return stack {
                  endpoint { "shelves", children = {
                    endpoint { "shelves/:shelf/:id", sample = { shelf = { "a", "b" }, id = { 1, "2" } } },
                    endpoint { "shelves/:shelf/all", sample = { shelf = { "x" } } },
                  } },
                }
                """, name: "samples.lua")
        #expect(
            host.declaredSamples["shelves/:shelf/:id"] == [
                ["id": "1", "shelf": "a"], ["id": "2", "shelf": "a"], ["id": "1", "shelf": "b"],
                ["id": "2", "shelf": "b"],
            ])
        #expect(host.declaredSamples["shelves/:shelf/all"] == [["shelf": "x"]])
        #expect(host.declaredSamples["shelves"] == nil)
    }

    @Test func manySampleValuesStopAtTheLimit() throws {
        let values = (1...30).map { "\"\($0)\"" }.joined(separator: ", ")
        let host = RouteScriptHost()
        try host.load(
            source: #"return stack { endpoint { "a/:x/:y", sample = { x = { \#(values) }, y = { \#(values) } } } }"#,
            name: "many.lua")
        let sets = try #require(host.declaredSamples["a/:x/:y"])
        #expect(sets.count == RouteScriptHost.sampleLimit)
        #expect(sets.first == ["x": "1", "y": "1"])
    }

    /// shop.lua as a flow map: the nodes are its screens, tab bar and switcher; the edges
    /// are exactly the pushes, modals, tabs, sections and the sign-in guard it declares.
    @Test func theFlowMapOfShopHasItsScreensAndWays() throws {
        let host = try RouteScriptHost(contentsOf: repositoryRoot + "/examples/shop.lua")
        let map = try #require(host.routeTree).flowMap()
        #expect(
            Set(map.nodes.map(\.id)) == [
                "root", "signin", "junction:home", "home", "product/:id", "search", "cart", "checkout",
                "checkout/pay", "account", "account/orders/:id", "not-found",
            ])
        #expect(map.nodes.first { $0.id == "junction:home" }?.kind == .tabs)
        #expect(map.nodes.first { $0.id == "junction:home" }?.guarded == true)
        #expect(map.nodes.first { $0.id == "home" }?.guarded == false)
        #expect(map.nodes.first { $0.id == "root" }?.kind == .sections)
        let edges = Set(map.edges.map { "\($0.kind.rawValue) \($0.from) → \($0.to)" })
        #expect(
            edges == [
                "section root → signin", "section root → junction:home",
                "section root → not-found", "tab junction:home → home", "tab junction:home → search",
                "tab junction:home → cart", "tab junction:home → account", "push home → product/:id",
                "modal cart → checkout", "push checkout → checkout/pay", "push account → account/orders/:id",
                "guard junction:home → signin",
            ])
        #expect(map.initial == "home")
        #expect(map.edges.count == edges.count, "no edge twice")
    }

    /// A redirect is marked on its node (its target is only known when it runs); a stack with
    /// several roots leads to each; a guard on a stack guards the screens it holds.
    @Test func redirectsAndStackRootsAndGuardsOnStacks() throws {
        let host = RouteScriptHost()
        try host.load(
            source: """
                return junction {
                  stack { id = "main", enabled = function() return false end, fallback = "login",
                    endpoint { "a" }, endpoint { "b", redirect = function() return "a" end },
                  },
                  endpoint { "login" },
                }
                """, name: "flow.lua")
        let map = try #require(host.routeTree).flowMap()
        #expect(!map.nodes.contains { $0.id == "main" }, "a stack is not a place")
        #expect(map.nodes.first { $0.id == "b" }?.redirects == true)
        // The stack's guard is its screens': they are what it guards on the map.
        #expect(map.nodes.filter(\.guarded).map(\.id) == ["a", "b"])
        let edges = Set(map.edges.map { "\($0.kind.rawValue) \($0.from) → \($0.to)" })
        #expect(
            edges == [
                "tab root → a", "tab root → b", "tab root → login", "guard a → login",
                "guard b → login",
            ])
        #expect(map.initial == nil)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(map.json.utf8)) as? [String: Any])
        #expect((json["nodes"] as? [[String: Any]])?.count == map.nodes.count)
        #expect((json["edges"] as? [[String: Any]])?.count == map.edges.count)
    }
}
