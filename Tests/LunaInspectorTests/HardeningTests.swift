import Foundation
import LunaInspector
import LunaLive
import LunaTestSupport
import NIOCore
import NIOWebSocket
import RouteCore
import RouteScript
import Testing

/// What a hostile local client can do to the inspector: nothing blocks it, nothing piles up.
@Suite(.serialized) struct HardeningTests {
    @Test func ambiguousRequestsAreRefusedAndTheConnectionCloses() throws {
        let served = try ServedScript()
        defer { served.stop() }
        let port = served.port
        let own = "127.0.0.1:\(port)"
        for headers in [
            "Host: \(own)\r\nHost: evil.example\r\n",
            "Host: \(own)\r\nOrigin: http://\(own)\r\nOrigin: http://evil.example\r\n",
        ] {
            let connection = try RawConnection(port: port)
            connection.send("GET /api/snapshot?token=\(served.token) HTTP/1.1\r\n\(headers)\r\n")
            let response = connection.readUntilClosed()
            #expect(response?.hasPrefix("HTTP/1.1 400") == true, "\(response ?? "not closed")")
        }
        // A 400 (a socket request that did not upgrade) closes a kept-alive connection too.
        let connection = try RawConnection(port: port)
        connection.send("GET /socket?token=\(served.token) HTTP/1.1\r\nHost: \(own)\r\n\r\n")
        #expect(connection.readUntilClosed()?.hasPrefix("HTTP/1.1 400") == true)
        // Only /socket upgrades, not a path that starts with it.
        #expect(throws: PageClient.Failure.self) {
            _ = try PageClient.connect(port: port, token: served.token, path: "/socketfoo")
        }
    }

    @Test func aFrameWithReservedBitsFailsTheConnection() throws {
        let served = try ServedScript()
        defer { served.stop() }
        let page = try PageClient.connect(port: served.port, token: served.token)
        _ = try page.next(containing: #""type":"snapshot""#)
        var buffer = page.channel.allocator.buffer(capacity: 32)
        buffer.writeString(#"{"op":"snapshot","id":1}"#)
        try page.sendFrame(WebSocketFrame(fin: true, rsv1: true, opcode: .text, maskKey: .random(), data: buffer))
        let deadline = ContinuousClock.now + .seconds(5)
        while page.channel.isActive, ContinuousClock.now < deadline { usleep(10_000) }
        #expect(!page.channel.isActive)
        #expect(!page.inbox.all().contains { $0.contains(#""id":1"#) }, "the frame was not processed")
    }

    @Test func halfOpenConnectionsTimeOutAndTheCapKeepsTheServerAccepting() throws {
        var configuration = Inspector.Configuration()
        configuration.headerTimeout = .milliseconds(300)
        configuration.maxConnections = 4
        let served = try ServedScript(configuration: configuration)
        defer { served.stop() }
        let port = served.port
        let idle = try (0..<4).map { _ in try RawConnection(port: port) }
        for connection in idle { connection.send("GET / HTTP/1.1\r\n") }  // never finished
        usleep(50_000)
        // Over the cap: closed at once, with no response.
        let extra = try RawConnection(port: port)
        #expect(extra.readUntilClosed(timeout: .seconds(2)) == "")
        // The half-open ones are closed by the header timeout…
        for connection in idle { #expect(connection.readUntilClosed() != nil) }
        // …and a page can connect again.
        let page = try PageClient.connect(port: port, token: served.token)
        defer { page.close() }
        _ = try page.next(containing: #""type":"snapshot""#)
    }

    @Test func aPageGetsAQuotaAndEveryRequestOneReply() throws {
        var configuration = Inspector.Configuration()
        configuration.maxRequestsPerPage = 2
        let served = try ServedScript(configuration: configuration)
        defer { served.stop() }
        let page = try PageClient.connect(port: served.port, token: served.token)
        defer { page.close() }
        _ = try page.next(containing: #""type":"snapshot""#)
        // Hold the session, so the page's requests queue up behind it.
        var replies: [String] = []
        try served.session.withHost { _ in
            for id in 1...30 { try page.send(#"{"op":"dispatch","request":"books","id":\#(id)}"#) }
            for _ in 1...28 { replies.append(try page.next(containing: #""busy""#)) }
        }
        for _ in 1...2 { replies.append(try page.next(containing: #""type":"reply""#)) }
        #expect(replies.filter { $0.contains(#""kind":"busy""#) }.count == 28)
        let ids = Set(replies.compactMap { reply in (object(reply)["id"] as? Int) })
        #expect(ids == Set(1...30), "every request got exactly one reply")
    }

    /// The network side never waits on the session: while it works (here: held by the test),
    /// `/api/snapshot` answers with the last snapshot marked busy, and a new page gets it too.
    @Test func aBusySessionFreezesNothing() throws {
        let served = try ServedScript()
        defer { served.stop() }
        let port = served.port
        _ = try httpGet(port: port, path: "/api/snapshot?token=\(served.token)")  // a first snapshot
        try served.session.withHost { _ in
            let (status, body) = try httpGet(port: port, path: "/api/snapshot?token=\(served.token)")
            #expect(status == 200)
            #expect(body.hasPrefix(#"{"busy":true,"#))
            let page = try PageClient.connect(port: port, token: served.token)
            defer { page.close() }
            _ = try page.next(containing: #""type":"snapshot""#, timeout: .seconds(5))
        }
    }
}

/// A snapshot carries the newest page of the history; a page asks for older ones.
@Suite struct HistoryPagingTests {
    @Test func theSnapshotHoldsTheNewestHundredAndOlderPagesComeOnRequest() throws {
        let served = try ServedScript()
        defer { served.stop() }
        for index in 0..<250 { try served.session.dispatch(index % 2 == 0 ? "books/\(index)" : "today") }
        let page = try PageClient.connect(port: served.port, token: served.token)
        defer { page.close() }
        let snapshot = object(try page.next(containing: #""type":"snapshot""#))["snapshot"] as? [String: Any]
        let history = snapshot?["history"] as? [[String: Any]] ?? []
        #expect(history.count == 100)
        #expect(history.first?["index"] as? Int == 150)
        #expect(snapshot?["historyCount"] as? Int == 250)
        try page.send(#"{"op":"history","before":150,"id":9}"#)
        let older = object(try page.next(containing: #""id":9"#))["history"] as? [[String: Any]] ?? []
        #expect(older.map { $0["index"] as? Int } == (50..<150).map { $0 })
    }
}

/// The history is bounded: the last 1,000 entries (up to a tenth more) are kept, older ones
/// counted as dropped; travel and undo work on what is kept.
@Suite struct HistoryBoundTests {
    @Test func theHistoryKeepsTheLastThousandEntries() throws {
        let folder = ScriptFolder()
        let script = folder.write(
            "h.lua", "return stack { endpoint { 'items', children = { endpoint { './:id' } } } }")
        let session = LiveSession(host: try RouteScriptHost(contentsOf: script))
        for k in 0..<1_200 { _ = try session.dispatch("items/\(k)") }
        #expect(session.historyCount == 1_200)
        #expect((1_000...1_100).contains(session.history.count))
        #expect(session.historyDropped + session.history.count == 1_200)
        #expect(session.history.first?.index == session.historyDropped)
        #expect(
            throws: Failure(kind: "history", message: "history entry 3 was dropped (the last 1000 entries are kept)")
        ) {
            try session.travel(to: 3)
        }
        try session.travel(to: 1_150)
        #expect(session.withHost { $0.state.params["id"] } == "1150")
        try session.undo()
        #expect(session.withHost { $0.state.params["id"] } == "1199", "undo returns to where the travel started")
    }
}

/// `luna serve`'s terminal shows a reload's warnings (the lint's "can never win") as the REPL
/// does.
@Suite struct ServeReportTests {
    @Test func theWatchLoopReportsTheLintsWarnings() throws {
        let served = try ServedScript(source: "return stack { endpoint { 'a' } }")
        defer { served.stop() }
        served.save("return stack { endpoint { 'users/:id' }, endpoint { 'users/:name' } }")
        let report = try served.reports.next(timeout: .seconds(10)) { $0.hasPrefix("reloaded in") }
        #expect(report.contains("route 'users/:name' can never win"), "\(report)")
    }
}
