import Foundation
import LunaInspector
import LunaLive
import LunaTestSupport
import NIOCore
import NIOHTTP1
import NIOWebSocket
import RouteCore
import RouteScript
import Testing

/// The inspector's API and push stream, over real sockets on loopback.
@Suite(.serialized) struct InspectorTests {
    @Test func aPageGetsTheSnapshotThenTheEventOfADispatchAndItsReply() throws {
        let served = try ServedScript()
        defer { served.stop() }
        let page = try PageClient.connect(port: served.port, token: served.token)
        defer { page.close() }
        let snapshot = object(try page.next(containing: #""type":"snapshot""#))
        let first = snapshot["snapshot"] as? [String: Any]
        #expect(first?["script"] as? String == "books.lua")
        #expect((first?["routes"] as? [Any])?.count == 12)
        try page.send(#"{"id":1,"op":"dispatch","request":"books/42?title=Dune"}"#)
        let event = object(try page.next(containing: #""type":"event""#))
        #expect(event["event"] as? String == "dispatched")
        #expect(event["origin"] as? String == "page")
        #expect((event["entry"] as? [String: Any])?["route"] as? String == "books/:id")
        #expect((event["plan"] as? [[String: Any]])?.contains { $0["op"] as? String == "setStack" } == true)
        let tree = (event["snapshot"] as? [String: Any])?["tree"] as? [String: Any]
        #expect(tree?["kind"] as? String == "switcher")
        let reply = object(try page.next(containing: #""type":"reply""#))
        #expect(reply["ok"] as? Bool == true && reply["id"] as? Int == 1 && reply["route"] as? String == "books/:id")
    }

    @Test func aFailedDispatchRepliesWithItsKindAndTheExplain() throws {
        let served = try ServedScript()
        defer { served.stop() }
        let page = try PageClient.connect(port: served.port, token: served.token)
        defer { page.close() }
        try page.send(#"{"id":2,"op":"dispatch","request":"today/story/news/x%zz"}"#)
        let reply = object(try page.next(containing: #""type":"reply""#))
        #expect(reply["ok"] as? Bool == false)
        #expect((reply["error"] as? [String: Any])?["kind"] as? String == "invalidRequest")
        try page.send(#"{"id":3,"op":"dispatch","request":"story|{\"type\":\"news\",\"id\":\"x\"}"}"#)
        let rejected = object(try page.next(containing: #""type":"reply""#))
        #expect((rejected["error"] as? [String: Any])?["kind"] as? String == "noMatch")
        try page.send(#"{"id":4,"op":"explain","request":"today/story/news/x"}"#)
        let explain = object(try page.next(containing: #""type":"reply""#))
        let attempts = (explain["explain"] as? [String: Any])?["attempts"] as? [[String: Any]]
        #expect(
            attempts?.contains {
                $0["pattern"] as? String == "today/story/:type/:id" && $0["matched"] as? Bool == false
            } == true)
    }

    @Test func theREPLAndThePageAreOneSession() throws {
        let served = try ServedScript()
        defer { served.stop() }
        let page = try PageClient.connect(port: served.port, token: served.token)
        defer { page.close() }
        _ = try page.next(containing: #""type":"snapshot""#)
        try served.session.dispatch("orders/5")  // as the REPL would
        let event = object(try page.next(containing: #""type":"event""#))
        #expect(event["origin"] as? String == "repl")
        try page.send(#"{"id":1,"op":"back"}"#)
        _ = try page.next(containing: #""type":"reply""#)
        #expect(served.session.withHost { $0.state.request?.path } == "orders")
        try page.send(#"{"id":2,"op":"travel","index":0}"#)
        _ = try page.next(containing: #""event":"travelled""#)
        #expect(served.session.withHost { $0.state.request?.path } == "orders/5")
        try page.send(#"{"id":3,"op":"flag","name":"beta","value":"on"}"#)
        _ = try page.next(containing: #""event":"flagChanged""#)
        try page.send(#"{"id":4,"op":"device","device":"pad"}"#)
        let device = object(try page.next(containing: #""event":"deviceChanged""#))
        #expect((device["snapshot"] as? [String: Any])?["device"] as? String == "pad")
        #expect(served.session.history.map(\.kind) == [.dispatch, .back, .flag, .device])
    }

    /// A reload sends the route table only when it changed: a title edit sends none (the page
    /// keeps its table), a new route sends it.
    @Test func aReloadSendsTheRoutesOnlyWhenTheyChanged() throws {
        let served = try ServedScript()
        defer { served.stop() }
        let page = try PageClient.connect(port: served.port, token: served.token)
        defer { page.close() }
        _ = try page.next(containing: #""type":"snapshot""#)
        try page.send(#"{"id":1,"op":"reload"}"#)
        let first = object(try page.next(containing: #""event":"reloaded""#))
        #expect((first["snapshot"] as? [String: Any])?["routes"] != nil, "the first reload sends the table")
        try page.send(#"{"id":2,"op":"reload"}"#)
        let same = object(try page.next(containing: #""event":"reloaded""#))
        #expect((same["snapshot"] as? [String: Any])?["routes"] == nil, "unchanged: not sent again")
        #expect((same["snapshot"] as? [String: Any])?["tree"] != nil)
        let original = try String(contentsOfFile: served.script, encoding: .utf8)
        served.save(
            original.replacingOccurrences(
                of: #"endpoint { "today", title = "Today""#, with: #"endpoint { "today", title = "Today's picks""#))
        // A title edit: only that row, in a patch (no table, no order, nothing removed).
        let retitled = object(try page.next(containing: #""event":"reloaded""#))
        #expect((retitled["snapshot"] as? [String: Any])?["routes"] == nil)
        let patch = retitled["routePatch"] as? [String: Any]
        let rows = patch?["rows"] as? [[String: Any]]
        #expect(rows?.count == 1)
        #expect(rows?.first?["id"] as? String == "today")
        #expect(rows?.first?["title"] as? String == "Today's picks")
        #expect(patch?["order"] is NSNull && (patch?["removed"] as? [Any])?.isEmpty == true)
        // A route added and one removed: their rows and the new order.
        let retitledText = try String(contentsOfFile: served.script, encoding: .utf8)
        served.save(
            retitledText.replacingOccurrences(of: #"endpoint { "delivery""#, with: #"endpoint { "shipping""#))
        let moved = object(try page.next(containing: #""event":"reloaded""#))
        let change = moved["routePatch"] as? [String: Any]
        #expect((change?["removed"] as? [String]) == ["delivery"], "\(change ?? [:])")
        #expect((change?["rows"] as? [[String: Any]])?.map { $0["id"] as? String } == ["shipping"])
        let order = change?["order"] as? [String] ?? []
        #expect(order.contains("shipping") && !order.contains("delivery"))
        served.save(retitledText)
        _ = try page.next(containing: #""event":"reloaded""#)
        try page.send(#"{"id":3,"op":"reload"}"#)
        let again = object(try page.next(containing: #""event":"reloaded""#))
        #expect((again["snapshot"] as? [String: Any])?["routes"] == nil)
        // A page that connects now gets the whole table.
        let late = try PageClient.connect(port: served.port, token: served.token)
        defer { late.close() }
        let snapshot = object(try late.next(containing: #""type":"snapshot""#))
        #expect((snapshot["snapshot"] as? [String: Any])?["routes"] != nil)
    }

    /// A row or a tab never visited asks the session to fill the route in (op `open`); the
    /// page never fills a pattern itself.
    @Test func openFillsTheRouteInTheSession() throws {
        let served = try ServedScript()
        defer { served.stop() }
        let page = try PageClient.connect(port: served.port, token: served.token)
        defer { page.close() }
        _ = try page.next(containing: #""type":"snapshot""#)
        try page.send(#"{"id":1,"op":"open","node":"orders/:id","params":{"id":"5"}}"#)
        let event = object(try page.next(containing: #""type":"event""#))
        let snapshot = event["snapshot"] as? [String: Any]
        #expect((snapshot?["requests"] as? [String: String])?["orders/:id"] == "orders/5")
        let reply = object(try page.next(containing: #""type":"reply""#))
        #expect(reply["ok"] as? Bool == true)
        #expect(served.session.withHost { $0.state.request?.path } == "orders/5")
        try page.send(#"{"id":2,"op":"open","node":"orders/:id","params":{"id":7}}"#)
        let bad = object(try page.next(containing: #""id":2"#))
        #expect((bad["error"] as? [String: Any])?["kind"] as? String == "invalidMessage")
    }

    @Test func savingTheScriptPushesAReloadAndABrokenSaveAFailureThatClearsWhenFixed() throws {
        let served = try ServedScript()
        defer { served.stop() }
        let page = try PageClient.connect(port: served.port, token: served.token)
        defer { page.close() }
        _ = try page.next(containing: #""type":"snapshot""#)
        let original = try String(contentsOfFile: served.script, encoding: .utf8)
        served.save(original.replacingOccurrences(of: #"title = "Books""#, with: #"title = "Library""#))
        let reloaded = object(try page.next(containing: #""event":"reloaded""#))
        #expect(reloaded["origin"] as? String == "watcher")
        #expect(((reloaded["summary"] as? [String: Any])?["changed"] as? [String])?.contains("books") == true)
        served.save("return stack { endpoint { 'a' ")
        let failed = object(try page.next(containing: #""event":"reloadFailed""#))
        let failure = (failed["snapshot"] as? [String: Any])?["reloadError"] as? String
        #expect(failure?.contains("books.lua:1:") == true)
        served.save(original)
        let fixed = object(try page.next(containing: #""event":"reloaded""#))
        #expect((fixed["snapshot"] as? [String: Any])?["reloadError"] is NSNull)
        // The lint's warnings reach the page and stay in its snapshots until the next reload.
        served.save("return stack { endpoint { 'users/:id' }, endpoint { 'users/:name' } }")
        let warned = object(try page.next(containing: #""event":"reloaded""#))
        let warnings = (warned["snapshot"] as? [String: Any])?["reloadWarnings"] as? [String] ?? []
        #expect(warnings.contains { $0.contains("route 'users/:name' can never win") }, "\(warnings)")
        let later = try PageClient.connect(port: served.port, token: served.token)
        defer { later.close() }
        let snapshot = object(try later.next(containing: #""type":"snapshot""#))["snapshot"] as? [String: Any]
        #expect((snapshot?["reloadWarnings"] as? [String])?.isEmpty == false)
    }

    @Test func badTokensForeignOriginsAndHostsAreRefusedAndTheServerGoesOn() throws {
        let served = try ServedScript()
        defer { served.stop() }
        let port = served.port
        for (token, host, origin, status) in [
            (nil, nil, nil, 403), ("0123", nil, nil, 403), (served.token, "evil.example:\(port)", nil, 421),
            (served.token, nil, "http://evil.example", 403),
        ] as [(String?, String?, String?, Int)] {
            var refused: Int?
            do { _ = try PageClient.connect(port: port, token: token, host: host, origin: origin) } catch {
                if case .refused(let code) = error as? PageClient.Failure { refused = code }
            }
            #expect(refused == status, "token \(token ?? "none"), host \(host ?? "own"), origin \(origin ?? "none")")
        }
        #expect(try httpGet(port: port, path: "/?token=\(served.token)").0 == 200)
        #expect(try httpGet(port: port, path: "/").0 == 403)
        #expect(try httpGet(port: port, path: "/?token=\(served.token)", host: "rebind.example:\(port)").0 == 421)
        #expect(
            try httpGet(port: port, path: "/api/snapshot?token=\(served.token)", origin: "http://evil.example").0 == 403
        )
        #expect(
            try httpGet(port: port, path: "/api/snapshot?token=\(served.token)", origin: "http://localhost:\(port)").0
                == 200)
        #expect(try httpGet(port: port, path: "/etc/passwd").0 == 404)
        #expect(try httpGet(port: port, path: "/../Package.swift").0 == 404)
        #expect(try httpGet(port: port, path: "/?token=\(served.token)", method: .POST).0 == 405)
        // Still serving.
        let page = try PageClient.connect(port: port, token: served.token, origin: "http://localhost:\(port)")
        defer { page.close() }
        _ = try page.next(containing: #""type":"snapshot""#)
    }

    @Test func malformedOversizedAndUnknownMessagesGetErrorsAndThePageStays() throws {
        let served = try ServedScript()
        defer { served.stop() }
        let page = try PageClient.connect(port: served.port, token: served.token)
        defer { page.close() }
        _ = try page.next(containing: #""type":"snapshot""#)
        for message in [
            "not json", "[1,2]", #"{"op":"rm -rf"}"#, #"{"id":1}"#, #"{"id":9,"op":"dispatch"}"#,
            #"{"id":9,"op":"lua","chunk":"os.exit()"}"#, #"{"id":9,"op":"travel","index":99}"#,
        ] {
            try page.send(message)
            let reply = object(try page.next(containing: #""type":"reply""#))
            #expect(reply["ok"] as? Bool == false, "\(message)")
            // The reply carries the message's id whenever it had one.
            if message.contains(#""id":9"#) { #expect(reply["id"] as? Int == 9, "\(message)") }
        }
        // A message over the limit (in pieces, so it passes the frame limit) is refused too.
        let big = String(repeating: "x", count: 40 * 1024)
        var first = page.channel.allocator.buffer(capacity: big.utf8.count)
        first.writeString(big)
        try page.sendFrame(WebSocketFrame(fin: false, opcode: .text, maskKey: .random(), data: first))
        try page.sendFrame(WebSocketFrame(fin: true, opcode: .continuation, maskKey: .random(), data: first))
        let tooBig = object(try page.next(containing: #""type":"reply""#))
        #expect((tooBig["error"] as? [String: Any])?["message"] as? String == "the message is larger than 65536 bytes")
        try page.send(#"{"id":10,"op":"dispatch","request":"today"}"#)
        #expect(object(try page.next(containing: #""type":"reply""#))["ok"] as? Bool == true)
        // One frame over the frame limit: the connection is closed, the server goes on.
        let huge = String(repeating: "y", count: 70 * 1024)
        var buffer = page.channel.allocator.buffer(capacity: huge.utf8.count)
        buffer.writeString(huge)
        try? page.sendFrame(WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: buffer))
        let other = try PageClient.connect(port: served.port, token: served.token)
        defer { other.close() }
        _ = try other.next(containing: #""type":"snapshot""#)
    }

    @Test func fiftyPagesSeeEveryEventOfAThousandDispatchesInOrder() throws {
        let served = try ServedScript()
        defer { served.stop() }
        let pages = try (0..<50).map { _ in try PageClient.connect(port: served.port, token: served.token) }
        defer { pages.forEach { $0.close() } }
        for page in pages { _ = try page.next(containing: #""type":"snapshot""#) }
        let requests = (0..<1000).map { $0 % 2 == 0 ? "books/\($0)" : "today" }
        for request in requests { try served.session.dispatch(request) }
        for page in pages {
            var indexes: [Int] = []
            while indexes.count < requests.count {
                let event = object(try page.next(containing: #""type":"event""#))
                if let index = (event["entry"] as? [String: Any])?["index"] as? Int { indexes.append(index) }
            }
            #expect(indexes == Array(0..<1000))
        }
    }

    @Test func aPageThatStopsReadingBlocksNoOne() throws {
        let served = try ServedScript()
        defer { served.stop() }
        let reader = try PageClient.connect(port: served.port, token: served.token)
        defer { reader.close() }
        _ = try reader.next(containing: #""type":"snapshot""#)
        // A page that never reads: its socket buffers fill, then the inspector drops it.
        let stalled = try PageClient.connect(port: served.port, token: served.token)
        stalled.channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in }
        let clock = ContinuousClock()
        let start = clock.now
        for index in 0..<3000 { try served.session.dispatch(index % 2 == 0 ? "books/\(index)" : "today") }
        let elapsed = clock.now - start
        // The session never waited for the stalled page (a hang guard, not a speed figure).
        #expect(elapsed < .seconds(60))
        var seen = 0
        while seen < 3000 {
            if (object(try reader.next(containing: #""type":"event""#))["entry"] as? [String: Any]) != nil { seen += 1 }
        }
        stalled.close()
    }
}
