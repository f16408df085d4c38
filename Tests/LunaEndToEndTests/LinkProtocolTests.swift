import Foundation
import LunaLink
import LunaLive
import LunaTestSupport
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import RouteCore
import Testing

/// The live link's protocol version (``LinkProtocol``): an app says it in its hello, a session
/// in every plan; when they differ, each side says so, naming both versions, instead of
/// starting over silently or misreading the other's messages.
@Suite(.serialized, .timeLimit(.minutes(2))) struct LinkProtocolTests {
    /// A session of the real server: a hello of protocol 3, 1 or none (an app from before the
    /// version was sent, which speaks 1) is refused with both versions named; protocol 2 is
    /// served.
    @Test func aSessionRefusesAnAppOfAnotherProtocolNamingBoth() throws {
        let served = try ServedScript()
        defer { served.stop() }
        try served.session.dispatch("books")
        let device = try DeviceLinkTests.connect(served)
        defer { device.close() }
        try device.send(#"{"type":"hello","protocol":3,"idiom":"phone","id":1}"#)
        let refusal = object(try device.next(containing: #""type":"reply""#))
        let error = refusal["error"] as? [String: Any]
        #expect(error?["kind"] as? String == "unsupportedProtocol")
        let message = error?["message"] as? String ?? ""
        #expect(message.contains("protocol 3") && message.contains("speaks 2"), "\(message)")

        for (hello, app) in [
            (#"{"type":"hello","protocol":1,"idiom":"phone","id":1}"#, 1),
            (#"{"type":"hello","idiom":"phone","id":1}"#, 1),
        ] {
            let old = try DeviceLinkTests.connect(served)
            defer { old.close() }
            try old.send(hello)
            let told = object(try old.next(containing: #""type":"reply""#))["error"] as? [String: Any]
            #expect(told?["kind"] as? String == "unsupportedProtocol", "\(hello)")
            let text = told?["message"] as? String
            #expect(text?.contains("protocol \(app)") == true, "\(hello)")
        }
        let current = try DeviceLinkTests.connect(served)
        defer { current.close() }
        try current.send(#"{"type":"hello","protocol":2,"idiom":"phone"}"#)
        let plan = object(try current.next(containing: #""type":"plan""#))
        #expect(plan["protocol"] as? Int == LinkProtocol.version)
    }

    /// A session that answers every message with `reply` (its text), recording what it got.
    final class ScriptedSession: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = WebSocketFrame
        typealias OutboundOut = WebSocketFrame
        let reply: String
        let received: Received
        init(reply: String, received: Received) {
            self.reply = reply
            self.received = received
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let frame = unwrapInboundIn(data)
            guard frame.opcode == .text else { return }
            var data = frame.unmaskedData
            received.add(data.readString(length: data.readableBytes) ?? "")
            let buffer = context.channel.allocator.buffer(string: reply)
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: buffer)), promise: nil)
        }
    }

    final class Received: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [String] = []
        func add(_ text: String) { lock.withLock { items.append(text) } }
        var all: [String] { lock.withLock { items } }
    }

    static func session(replying reply: String, received: Received) async throws -> (any Channel, Int) {
        let upgrader = NIOWebSocketServerUpgrader(
            shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ScriptedSession(reply: reply, received: received))
                }
            })
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline(
                    withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return (server, try #require(server.localAddress?.port))
    }

    /// An app linked to a session of protocol 3: the link says which versions met, and stops
    /// (connecting again cannot help) — one hello, no reconnection loop. Its hello said 2.
    @MainActor @Test func anAppStopsAtASessionOfAnotherProtocolNamingBoth() async throws {
        let received = Received()
        let (server, port) = try await Self.session(
            replying: #"{"type":"plan","protocol":3,"idiom":"phone","operations":[],"reflected":[],"vanished":[]}"#,
            received: received)
        var options = LunaLink<HeadlessPresenter>.Options()
        options.initialBackoff = .milliseconds(10)
        let link = LunaLink(
            url: "http://127.0.0.1:\(port)/?token=t", idiom: .phone, presenter: HeadlessPresenter(), options: options)
        var disconnected: [String] = []
        link.onEvent = { if case .disconnected(let why) = $0 { disconnected.append(why) } }
        link.start()
        defer { link.stop() }
        try await LunaLinkTests.until("the link to stop") { !disconnected.isEmpty }
        let why = disconnected.first ?? ""
        #expect(why.contains("protocol 3") && why.contains("app speaks 2"), "\(why)")
        // Given the time to reconnect (10 ms backoff), it did not.
        try await Task.sleep(for: .milliseconds(300))
        #expect(received.all.count == 1, "\(received.all)")
        #expect(received.all.first?.contains(#""protocol":2"#) == true, "\(received.all)")
        #expect(link.presentables.isEmpty)
        try await server.close().get()
    }
}
