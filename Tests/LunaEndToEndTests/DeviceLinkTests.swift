import Foundation
import LunaInspector
import LunaLive
import LunaTestSupport
import NIOCore
import NIOWebSocket
import RouteCore
import RouteScript
import Testing

/// The live link's server side (`/device`) over real sockets: a device says hello and gets
/// the plan from what it holds to the session's state, then the plan of every change made
/// anywhere; what it reports changes the session for every view.
@Suite(.serialized) struct DeviceLinkTests {
    static func connect(_ served: ServedScript) throws -> PageClient {
        try PageClient.connect(port: served.port, token: served.token, path: "/device")
    }

    static func operations(_ message: [String: Any], _ key: String = "operations") -> [[String: Any]] {
        message[key] as? [[String: Any]] ?? []
    }

    static func names(_ message: [String: Any], _ key: String = "operations") -> [String] {
        operations(message, key).map { "\($0["op"] as? String ?? "?") \($0["id"] as? String ?? "?")" }
    }

    @Test func aFreshDeviceGetsTheTreeAndTheWholeBuildUpThenEachChange() throws {
        let served = try ServedScript()
        defer { served.stop() }
        try served.session.dispatch("books/42?title=Dune")
        let device = try Self.connect(served)
        defer { device.close() }
        try device.send(#"{"type":"hello","protocol":2,"idiom":"phone"}"#)
        let first = object(try device.next(containing: #""type":"plan""#))
        #expect((first["tree"] as? [String: Any])?["luna"] as? Int == 1)
        #expect(first["vanished"] as? [String] == [])
        let creates = Self.operations(first).filter { $0["op"] as? String == "create" }
        #expect(creates.first?["id"] as? String == "root")
        // The book's create carries its activation and the title its update hook set.
        let book = creates.first { $0["id"] as? String == "books/:id" }
        #expect(book?["kind"] as? String == "endpoint")
        #expect(book?["title"] as? String == "Dune")
        let activation = book?["activation"] as? [String: Any]
        #expect(activation?["route"] as? String == "books/:id")
        #expect(activation?["params"] as? [String: String] == ["id": "42"])
        #expect(activation?["query"] as? [String: String] == ["title": "Dune"])
        #expect(Self.names(first).contains("setStack stack:books"))
        #expect(first["request"] as? String == "books/42?title=Dune")
        let state = try #require(first["state"] as? String)
        #expect(try RouterState(restoring: state).request?.original == "books/42?title=Dune")

        // A change in the REPL reaches the device as its plan, with the new activation.
        try served.session.dispatch("books/7")
        let next = object(try device.next(containing: #""type":"plan""#))
        #expect(next["tree"] == nil)
        let update = Self.operations(next).first { $0["op"] as? String == "update" }
        #expect(update?["id"] as? String == "books/:id")
        #expect((update?["activation"] as? [String: Any])?["params"] as? [String: String] == ["id": "7"])
        // The hook's new title follows as a decoration.
        let decorate = Self.operations(next).first { $0["op"] as? String == "decorate" }
        #expect(decorate?["title"] as? String == "Book 7")
    }

    @Test func aReconnectingDeviceGetsOnlyTheDifference() throws {
        let served = try ServedScript()
        defer { served.stop() }
        try served.session.dispatch("books/42")
        var device = try Self.connect(served)
        try device.send(#"{"type":"hello","protocol":2,"idiom":"phone"}"#)
        let first = object(try device.next(containing: #""type":"plan""#))
        let held = Self.operations(first).filter { $0["op"] as? String == "create" }.compactMap { $0["id"] as? String }
        let state = try #require(first["state"] as? String)
        device.close()

        // Meanwhile the session moves on.
        try served.session.dispatch("today")
        device = try Self.connect(served)
        defer { device.close() }
        let holds = "[" + held.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        let escaped = state.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        try device.send(
            #"{"type":"hello","protocol":2,"idiom":"phone","holds":"# + holds + #","state":""# + escaped + #""}"#)
        let resumed = object(try device.next(containing: #""type":"plan""#))
        let names = Self.names(resumed)
        // Nothing it holds is made again; the Today tab's screens are new.
        #expect(!names.contains { name in held.contains { name == "create \($0)" } })
        #expect(names.contains("create today"))
        #expect(names.contains("select junction:today"))
        #expect(resumed["vanished"] as? [String] == [])
        // The book screen it holds keeps its activation: no update for it.
        #expect(!names.contains("update books/:id"))

        // A hello whose state does not fit what it holds starts over: it unwinds all it holds.
        let other = try Self.connect(served)
        defer { other.close() }
        try other.send(
            #"{"type":"hello","protocol":2,"idiom":"phone","holds":["books","stack:books"],"state":"nonsense"}"#)
        let restart = object(try other.next(containing: #""type":"plan""#))
        #expect(restart["vanished"] as? [String] == ["books", "stack:books"])
        #expect(Self.names(restart).contains("create root"))
    }

    /// One state, a tree per idiom: a phone and an iPad follow the same session side by side.
    @Test func twoIdiomsFollowOneState() throws {
        let served = try ServedScript(example: "device.lua")
        defer { served.stop() }
        let phone = try Self.connect(served)
        defer { phone.close() }
        let pad = try Self.connect(served)
        defer { pad.close() }
        try phone.send(#"{"type":"hello","protocol":2,"idiom":"phone"}"#)
        try pad.send(#"{"type":"hello","protocol":2,"idiom":"pad"}"#)
        _ = try phone.next(containing: #""type":"plan""#)
        _ = try pad.next(containing: #""type":"plan""#)

        try served.session.dispatch("drafts")
        let onPhone = object(try phone.next(containing: #""type":"plan""#))
        let onPad = object(try pad.next(containing: #""type":"plan""#))
        // Drafts is a sheet over the inbox on the phone, a tab on the iPad.
        #expect(Self.names(onPhone).contains("presentModal inbox"))
        #expect(Self.names(onPad).contains("select tabs"))
        #expect(!Self.names(onPad).contains("presentModal inbox"))
        #expect(onPhone["idiom"] as? String == "phone" && onPad["idiom"] as? String == "pad")

        try served.session.dispatch("inbox/7")
        let phoneMessage = object(try phone.next(containing: #""type":"plan""#))
        let padMessage = object(try pad.next(containing: #""type":"plan""#))
        #expect(Self.names(phoneMessage).contains("dismissModal inbox"))
        #expect(Self.names(padMessage).contains("setStack mail"))
        #expect(phoneMessage["request"] as? String == "inbox/7" && padMessage["request"] as? String == "inbox/7")
    }

    /// The device's user went back (an interactive pop): the session follows, the REPL and the
    /// pages see it, and the device's own plan lists the pop as already made.
    @Test func aDevicesBackReachesTheSessionAndThePage() throws {
        let served = try ServedScript()
        defer { served.stop() }
        try served.session.dispatch("books/42")
        let page = try PageClient.connect(port: served.port, token: served.token)
        defer { page.close() }
        _ = try page.next(containing: #""type":"snapshot""#)
        let device = try Self.connect(served)
        defer { device.close() }
        try device.send(#"{"type":"hello","protocol":2,"idiom":"phone"}"#)
        _ = try device.next(containing: #""type":"plan""#)

        try device.send(#"{"id":3,"type":"back"}"#)
        let plan = object(try device.next(containing: #""type":"plan""#))
        #expect(Self.names(plan, "reflected") == ["setStack stack:books"])
        #expect(Self.names(plan) == ["unwind books/:id"])
        let reply = object(try device.next(containing: #""type":"reply""#))
        #expect(reply["ok"] as? Bool == true && reply["id"] as? Int == 3)
        let event = object(try page.next(containing: #""type":"event""#))
        #expect(event["origin"] as? String == "device" && event["event"] as? String == "wentBack")
        #expect(served.session.withHost { $0.state.request?.original } == "books")

        // A dispatch (a row tapped) is driven by the plan, not reflected.
        try device.send(#"{"type":"dispatch","request":"books/9"}"#)
        let pushed = object(try device.next(containing: #""type":"plan""#))
        #expect(Self.names(pushed).contains("setStack stack:books"))
        #expect(Self.names(pushed, "reflected").isEmpty)
    }

    @Test func aReloadSendsTheNewTreeAndUnwindsWhatIsGone() throws {
        let served = try ServedScript()
        defer { served.stop() }
        try served.session.dispatch("profile")
        let device = try Self.connect(served)
        defer { device.close() }
        try device.send(#"{"type":"hello","protocol":2,"idiom":"phone"}"#)
        _ = try device.next(containing: #""type":"plan""#)
        let text = try String(contentsOfFile: served.script, encoding: .utf8)
        served.save(text.replacingOccurrences(of: #"title = "Profile","#, with: #"title = "Me","#))
        let plan = object(try device.next(containing: #""tree""#, timeout: .seconds(20)))
        let decorations = Self.operations(plan).filter { $0["op"] as? String == "decorate" }
        #expect(decorations.contains { $0["id"] as? String == "profile" && $0["title"] as? String == "Me" })
    }

    @Test func hostileAndMalformedDeviceMessagesAreRefusedAndTheDeviceStays() throws {
        let served = try ServedScript()
        defer { served.stop() }
        let device = try Self.connect(served)
        defer { device.close() }
        let cases: [(String, String)] = [
            (#"{"type":"back"}"#, "say hello first"),
            (#"{"type":"hello","protocol":2,"idiom":"watch"}"#, "hello needs an \"idiom\": phone or pad"),
            (#"{"type":"hello","protocol":2,"idiom":"phone","holds":"all"}"#, "\"holds\" is a list"),
            (#"{"type":"hello","protocol":2,"idiom":"phone","holds":[1]}"#, "node ids (strings)"),
            (#"{"type":"run","lua":"os.exit()"}"#, "unknown type 'run'"),
            (#"{"op":"dispatch","request":"books"}"#, "the message has no \"type\""),
            ("not json", "the message is not JSON"),
            (#"{"type":"dispatch"}"#, "dispatch needs a string \"request\""),
        ]
        for (message, expected) in cases {
            try device.send(message)
            let reply = object(try device.next(containing: #""type":"reply""#))
            let said = (reply["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(reply["ok"] as? Bool == false && said.contains(expected), "\(message) → \(said)")
        }
        // Over the message limit (in pieces, so it passes the frame limit).
        let big = String(repeating: "x", count: 40 * 1024)
        var piece = device.channel.allocator.buffer(capacity: big.utf8.count)
        piece.writeString(big)
        try device.sendFrame(WebSocketFrame(fin: false, opcode: .text, maskKey: .random(), data: piece))
        try device.sendFrame(WebSocketFrame(fin: true, opcode: .continuation, maskKey: .random(), data: piece))
        #expect(try device.next(containing: #""type":"reply""#).contains("larger than 65536 bytes"))
        // Still connected and usable.
        try device.send(#"{"type":"hello","protocol":2,"idiom":"phone"}"#)
        _ = try device.next(containing: #""type":"plan""#)
        try device.send(#"{"type":"dispatch","request":"books/%zz"}"#)
        #expect(try device.next(containing: #""type":"reply""#).contains(#""ok":false"#))
        // Without the token, from a foreign host: refused before the upgrade.
        #expect(throws: PageClient.Failure.self) {
            _ = try PageClient.connect(port: served.port, token: nil, path: "/device")
        }
        #expect(throws: PageClient.Failure.self) {
            _ = try PageClient.connect(
                port: served.port, token: served.token, host: "evil.example:\(served.port)", path: "/device")
        }
    }

    /// A device that stops reading is disconnected when its queue is full; the session, the
    /// REPL and the other devices go on.
    @Test func aStalledDeviceBlocksNoOne() throws {
        var configuration = Inspector.Configuration()
        configuration.maxQueuedBytes = 64 * 1024
        let served = try ServedScript(configuration: configuration)
        defer { served.stop() }
        let stalled = try Self.connect(served)
        defer { stalled.close() }
        try stalled.send(#"{"type":"hello","protocol":2,"idiom":"phone"}"#)
        _ = try stalled.next(containing: #""type":"plan""#)
        stalled.channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in }
        let healthy = try Self.connect(served)
        defer { healthy.close() }
        try healthy.send(#"{"type":"hello","protocol":2,"idiom":"phone"}"#)
        _ = try healthy.next(containing: #""type":"plan""#)
        let clock = ContinuousClock()
        let start = clock.now
        let title = String(repeating: "t", count: 1000)
        for index in 0..<2000 { try served.session.dispatch("books/\(index)?title=" + title) }
        // The session never waited for the stalled device (a hang guard, not a speed figure).
        #expect(clock.now - start < .seconds(60))
        #expect(try healthy.next(containing: "\"books/1999?", timeout: .seconds(20)).contains("books/1999"))
        var waited = 0
        while served.inspector.deviceCount > 1, waited < 100 {
            Thread.sleep(forTimeInterval: 0.1)
            waited += 1
        }
        #expect(served.inspector.deviceCount == 1)
    }

    /// `--host 0.0.0.0`: a device on the network names this machine by an interface's
    /// address, and gets in (with the token); any other name is still refused.
    @Test func aServerOnEveryInterfaceAcceptsItsOwnAddressesOnly() throws {
        var configuration = Inspector.Configuration()
        configuration.host = "0.0.0.0"
        let served = try ServedScript(configuration: configuration)
        defer { served.stop() }
        let address = try #require(served.inspector.reachable.first, "this machine has no interface but loopback")
        #expect(served.inspector.reachableURLs.first == "http://\(address):\(served.port)/?token=\(served.token)")
        let device = try PageClient.connect(port: served.port, token: served.token, path: "/device", address: address)
        defer { device.close() }
        try device.send(#"{"type":"hello","protocol":2,"idiom":"pad"}"#)
        #expect(try device.next(containing: #""type":"plan""#).contains(#""idiom":"pad""#))
        for (host, token) in [("evil.example:\(served.port)", served.token), ("\(address):\(served.port)", nil)] {
            #expect(throws: PageClient.Failure.self, "\(host)") {
                _ = try PageClient.connect(
                    port: served.port, token: token, host: host, path: "/device", address: address)
            }
        }
        // Loopback only (the default): the interface's address is not this server's name.
        let local = try ServedScript()
        defer { local.stop() }
        #expect(local.inspector.reachable.isEmpty)
        #expect(throws: PageClient.Failure.self) {
            _ = try PageClient.connect(
                port: local.port, token: local.token, host: "\(address):\(local.port)", path: "/device")
        }
    }

    /// The pad's tree refuses what the phone session shows (its guard fails): the pad is told
    /// why and keeps what it shows; the next request both trees take reaches it again.
    @Test func aTreeThatCannotFollowTellsItsDevice() throws {
        let source = """
            local pad = device.idiom == "pad"
            return stack {
              endpoint { "home", title = "Home",
                children = {
                  endpoint { "./report", title = "Report",
                    enabled = function() if pad then error("reports need a phone") end return true end },
                },
              },
            }
            """
        let served = try ServedScript(example: "split.lua", source: source)
        defer { served.stop() }
        try served.session.dispatch("home")
        let pad = try Self.connect(served)
        defer { pad.close() }
        try pad.send(#"{"type":"hello","protocol":2,"idiom":"pad"}"#)
        _ = try pad.next(containing: #""type":"plan""#)
        try served.session.dispatch("home/report")
        let error = object(try pad.next(containing: #""type":"error""#))
        let message = (error["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(
            message.contains("the pad tree cannot follow") && message.contains("reports need a phone"), "\(message)")
        try served.session.dispatch("home?tab=2")
        let plan = object(try pad.next(containing: #""type":"plan""#))
        #expect(plan["request"] as? String == "home?tab=2")
    }
}

/// A leave guard and a linked app (examples/recipes/discard.lua): the app's swipe that the
/// guard asks about is put back by the next plan (no `create`: the app still holds the
/// screens), the app gets the question as a `confirm` message and answers it; `canLeave`
/// says ahead what the guard would answer.
@Suite(.serialized) struct DeviceLeaveGuardTests {
    @Test func aSwipeTheGuardAsksAboutIsPutBackAndTheAnswerComesFromTheApp() throws {
        let source = try String(contentsOfFile: repositoryRoot + "/examples/recipes/discard.lua", encoding: .utf8)
        let served = try ServedScript(example: "discard.lua", source: source)
        defer { served.stop() }
        try served.session.dispatch("accounts/transfer")
        _ = try served.session.perform(.flag("amount", "50"))
        let device = try DeviceLinkTests.connect(served)
        defer { device.close() }
        try device.send(#"{"type":"hello","protocol":2,"idiom":"phone"}"#)
        _ = try device.next(containing: #""type":"plan""#)

        // canLeave: what the guard would say now, nothing pending after.
        try device.send(#"{"id":1,"type":"canLeave","node":"accounts/transfer","request":"accounts"}"#)
        let ahead = object(try device.next(containing: #""leave""#))
        let leave = ahead["leave"] as? [String: Any]
        #expect(leave?["answer"] as? String == "ask")
        #expect(leave?["question"] as? String == "Discard this transfer of 50?")
        #expect(served.session.withHost { $0.pendingQuestion } == nil)

        // The user swiped the sheet down: the guard asks; the sheet is put back (structure only).
        try device.send(#"{"id":2,"type":"back"}"#)
        let putBack = object(try device.next(containing: #""type":"plan""#))
        #expect(DeviceLinkTests.names(putBack) == ["setStack transfer-sheet", "presentModal accounts"], "\(putBack)")
        #expect(DeviceLinkTests.names(putBack, "reflected").isEmpty)
        let question = object(try device.next(containing: #""type":"confirm""#))
        #expect(question["question"] as? String == "Discard this transfer of 50?")
        #expect(question["node"] as? String == "accounts/transfer")
        let reply = object(try device.next(containing: #""type":"reply""#))
        #expect((reply["question"] as? [String: Any])?["text"] as? String == "Discard this transfer of 50?")
        #expect(served.session.withHost { $0.state.request?.original } == "accounts/transfer")

        // The app's user confirms: the session makes the change, and the plan drives it.
        try device.send(#"{"id":3,"type":"confirm"}"#)
        let closed = object(try device.next(containing: #""type":"plan""#))
        #expect(DeviceLinkTests.names(closed).contains("dismissModal accounts"), "\(closed)")
        #expect(DeviceLinkTests.names(closed).contains("unwind accounts/transfer"))
        #expect(served.session.withHost { $0.state.request?.original } == "accounts")
        #expect(served.session.withHost { $0.pendingQuestion } == nil)
    }
}
