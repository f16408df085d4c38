import Foundation
import LunaInspector
import LunaLive
import LunaTestSupport
import RouteCore
import RouteScript
import Testing

/// `link = false` on the page's and the device's roads (examples/shop.lua closes checkout and
/// payment to links): the page's address bar (and its `?path=`, which sends the same
/// `dispatch`), a linked device's `dispatch` and `sync`, and the session `luna go` drives.
@Suite(.serialized) struct ClosedToLinksRoadsTests {
    @Test func thePageAndADeviceCannotLinkIntoAClosedRoute() throws {
        let served = try ServedScript(example: "shop.lua")
        defer { served.stop() }
        try served.session.dispatch("cart")
        let page = try PageClient.connect(port: served.port, token: served.token)
        defer { page.close() }
        _ = try page.next(containing: #""type":"snapshot""#)
        try page.send(#"{"id":1,"op":"dispatch","request":"myshop://checkout/pay"}"#)
        let reply = object(try page.next(containing: #""type":"reply""#))
        #expect(reply["ok"] as? Bool == false)
        let error = reply["error"] as? [String: Any]
        #expect(error?["kind"] as? String == "invalidRequest")
        #expect((error?["message"] as? String)?.contains("route 'checkout/pay' has link = false") == true)
        // The app's own request for the same screen opens it.
        try page.send(#"{"id":2,"op":"dispatch","request":"checkout/pay"}"#)
        #expect(object(try page.next(containing: #""id":2"#))["ok"] as? Bool == true)

        try served.session.dispatch("cart")
        let device = try DeviceLinkTests.connect(served)
        defer { device.close() }
        try device.send(#"{"type":"hello","protocol":2,"idiom":"phone"}"#)
        _ = try device.next(containing: #""type":"plan""#)
        for (id, type) in [(3, "dispatch"), (4, "sync")] {
            try device.send(#"{"id":\#(id),"type":"\#(type)","request":"https://shop.example/checkout"}"#)
            let answer = object(try device.next(containing: #""type":"reply""#))
            #expect(answer["ok"] as? Bool == false && answer["id"] as? Int == id, "\(answer)")
        }
        #expect(served.session.withHost { $0.state.request?.original } == "cart")
    }
}

/// What a peer sends is looked up, never kept: ids in a device's hello and a page's `open`
/// that no tree declares are not stored by the server.
@Suite(.serialized) struct OutsideIDsServerTests {
    @Test func helloStatesAndPageOpensOfUnknownIdsAreNotKept() throws {
        let served = try ServedScript()
        defer { served.stop() }
        let page = try PageClient.connect(port: served.port, token: served.token)
        defer { page.close() }
        _ = try page.next(containing: #""type":"snapshot""#)
        let ids = (0..<20).map { "peer-\($0)-" + UUID().uuidString }
        for (number, id) in ids.enumerated() {
            try page.send(#"{"id":\#(number),"op":"open","node":"\#(id)"}"#)
            let reply = object(try page.next(containing: #""id":\#(number),"#))
            #expect(reply["ok"] as? Bool == false)
        }
        for id in ids.prefix(5) {
            let device = try DeviceLinkTests.connect(served)
            let state = #"{\"v\":1,\"r\":\"books\",\"p\":[\"k\",\"\#(id)-d\",[]]}"#
            try device.send(#"{"type":"hello","protocol":2,"idiom":"phone","holds":["\#(id)-h"],"state":"\#(state)"}"#)
            _ = try device.next(containing: #""type":"plan""#)
            device.close()
        }
        for id in ids {
            #expect(NodeID(existing: id) == nil && NodeID(existing: id + "-d") == nil)
            #expect(NodeID(existing: id + "-h") == nil)
        }
    }
}

/// A modest app's whole prototype fits in a page file of at most 1 MB (the banking app the
/// new user built, `../shared/fixtures/bank.lua`: 3,964 states, 12.6 MB written plainly).
@Suite struct PrototypeSizeTests {
    @Test func theBankingAppsWholePrototypeIsUnderOneMegabyte() throws {
        let script = repositoryRoot + "/../shared/fixtures/bank.lua"
        try #require(FileManager.default.fileExists(atPath: script), "the fixture is beside the repository")
        let prototype = try Prototype.explore(
            try RouteScriptHost(contentsOf: script), script: "bank.lua", limit: 20_000)
        #expect(prototype.cut == nil, "the whole prototype: \(prototype.states) states")
        let html = PrototypePage.html(prototype, title: "bank.lua")
        #expect(html.utf8.count <= 1 << 20, "\(html.utf8.count) bytes")
    }
}
