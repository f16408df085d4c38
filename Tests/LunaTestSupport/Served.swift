import Foundation
import LunaInspector
import LunaLive
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import RouteScript

/// An inspector serving a session over a copy of an example, with a watcher thread that
/// reloads on save (as `luna serve` does).
package final class ServedScript: @unchecked Sendable {
    package let folder = ScriptFolder()
    package let script: String
    package let session: LiveSession
    package let inspector: Inspector
    private let stopped = Flag()
    /// What the watch loop reported (as `luna serve` prints it).
    package let reports = Inbox()
    private let watching = DispatchGroup()

    package init(
        example: String = "books.lua", source: String? = nil, configuration: Inspector.Configuration = .init()
    ) throws {
        let text = try source ?? String(contentsOfFile: repositoryRoot + "/examples/" + example, encoding: .utf8)
        script = folder.replace(example, text)
        session = LiveSession(host: try RouteScriptHost(contentsOf: script))
        inspector = Inspector(session: session, scriptName: example, configuration: configuration)
        try inspector.start()
        let session = self.session
        let stopped = self.stopped
        let reports = self.reports
        // Watching starts here, before the test can save: no save is missed.
        let watcher = makeFileWatcher()
        watcher.watch(session.withHost { $0.files })
        // The watcher is not Sendable; from here on only the watch thread touches it.
        nonisolated(unsafe) let handedOver = watcher
        watching.enter()
        Thread.detachNewThread { [watching] in
            WatchLoop.run(session: session, watcher: handedOver, report: { reports.add($0) }, until: { stopped.value })
            watching.leave()
        }
    }

    package var port: Int { inspector.port }
    package var token: String { inspector.token }

    package func save(_ text: String) { folder.replace((script as NSString).lastPathComponent, text) }

    package func stop() {
        stopped.value = true
        watching.wait()
        inspector.stop()
    }
}

package final class Flag: @unchecked Sendable {
    package init() {}
    private let lock = NSLock()
    private var flag = false
    package var value: Bool {
        get { lock.withLock { flag } }
        set { lock.withLock { flag = newValue } }
    }
}

/// A test page: a WebSocket client (SwiftNIO's client upgrader) that collects the text
/// messages it receives.
package final class PageClient: @unchecked Sendable {
    package static let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)

    package let channel: any Channel
    package let inbox: Inbox

    package enum Failure: Error { case refused(Int), timeout(String) }

    /// Connects; throws `.refused(status)` when the server declines the upgrade.
    package static func connect(
        port: Int, token: String?, host: String? = nil, origin: String? = nil, path: String = "/socket",
        address: String = "127.0.0.1"
    ) throws -> PageClient {
        let inbox = Inbox()
        let upgraded = group.next().makePromise(of: Void.self)
        let bootstrap = ClientBootstrap(group: group).channelInitializer { channel in
            let upgrader = NIOWebSocketClientUpgrader(
                maxFrameSize: 1 << 24,
                upgradePipelineHandler: { channel, _ in
                    channel.eventLoop.makeCompletedFuture {
                        // The refusal watcher reads HTTP; from here on the bytes are frames.
                        let refusal = try channel.pipeline.syncOperations.handler(type: Refusal.self)
                        channel.pipeline.syncOperations.removeHandler(refusal, promise: nil)
                        try channel.pipeline.syncOperations.addHandler(Collector(inbox: inbox))
                        upgraded.succeed(())
                    }
                })
            return channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHTTPClientHandlers(
                    leftOverBytesStrategy: .forwardBytes,
                    withClientUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
                try channel.pipeline.syncOperations.addHandler(Refusal(promise: upgraded))
            }
        }
        let channel = try bootstrap.connect(host: address, port: port).wait()
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: host ?? "\(address.contains(":") ? "[\(address)]" : address):\(port)")
        if let origin { headers.add(name: "Origin", value: origin) }
        headers.add(name: "Content-Length", value: "0")
        let uri = path + (token.map { "?token=" + $0 } ?? "")
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: uri, headers: headers)
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        try channel.writeAndFlush(HTTPClientRequestPart.end(nil)).wait()
        do { try upgraded.futureResult.wait() } catch let failure as Failure {
            channel.close(promise: nil)
            throw failure
        }
        return PageClient(channel: channel, inbox: inbox)
    }

    private init(channel: any Channel, inbox: Inbox) {
        self.channel = channel
        self.inbox = inbox
    }

    package func send(_ text: String) throws {
        var buffer = channel.allocator.buffer(capacity: text.utf8.count)
        buffer.writeString(text)
        let frame = WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: buffer)
        try channel.writeAndFlush(frame).wait()
    }

    package func sendFrame(_ frame: WebSocketFrame) throws { try channel.writeAndFlush(frame).wait() }

    /// The next message whose text contains `needle` (messages before it are consumed).
    package func next(containing needle: String = "", timeout: Duration = .seconds(10)) throws -> String {
        try inbox.next(timeout: timeout) { $0.contains(needle) }
    }

    package func close() { try? channel.close().wait() }
}

/// Messages received, in order, with a wait for the next one.
package final class Inbox: @unchecked Sendable {
    private let condition = NSCondition()
    private var messages: [String] = []
    private(set) var closed = false

    package func add(_ text: String) {
        condition.lock()
        messages.append(text)
        condition.broadcast()
        condition.unlock()
    }

    package func markClosed() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    package var isClosed: Bool {
        condition.lock()
        defer { condition.unlock() }
        return closed
    }

    package func next(timeout: Duration, where matches: (String) -> Bool) throws -> String {
        let deadline = Date().addingTimeInterval(
            Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18)
        condition.lock()
        defer { condition.unlock() }
        while true {
            while !messages.isEmpty {
                let message = messages.removeFirst()
                if matches(message) { return message }
            }
            if closed { throw PageClient.Failure.timeout("the connection closed") }
            if !condition.wait(until: deadline) { throw PageClient.Failure.timeout("no matching message") }
        }
    }

    package func all() -> [String] {
        condition.lock()
        defer { condition.unlock() }
        let taken = messages
        messages = []
        return taken
    }
}

package final class Collector: ChannelInboundHandler {
    package typealias InboundIn = WebSocketFrame
    package let inbox: Inbox
    package init(inbox: Inbox) { self.inbox = inbox }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        if frame.opcode == .text { inbox.add(String(buffer: frame.data)) }
    }

    package func channelInactive(context: ChannelHandlerContext) {
        inbox.markClosed()
        context.fireChannelInactive()
    }
}

/// Sees the server's answer when it declined the upgrade.
package final class Refusal: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPClientResponsePart
    package let promise: EventLoopPromise<Void>
    package init(promise: EventLoopPromise<Void>) { self.promise = promise }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) {
            promise.fail(PageClient.Failure.refused(Int(head.status.code)))
        }
    }
}

/// A plain HTTP GET over SwiftNIO's client handlers, with any Host and Origin: the status and
/// the body.
package func httpGet(
    port: Int, path: String, host: String? = nil, origin: String? = nil, method: HTTPMethod = .GET
) throws
    -> (Int, String)
{
    try httpRequest(port: port, method: method, path: path, host: host, origin: origin, body: nil)
}

/// One HTTP/1.1 request over SwiftNIO: its status and body, when they come.
package func httpResponse(
    port: Int, method: HTTPMethod, path: String, host: String? = nil, origin: String? = nil, body: [UInt8]?
) -> EventLoopFuture<(Int, String)> {
    let done = PageClient.group.next().makePromise(of: (Int, String).self)
    let bootstrap = ClientBootstrap(group: PageClient.group).channelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHTTPClientHandlers()
            try channel.pipeline.syncOperations.addHandler(ResponseReader(promise: done))
        }
    }
    return bootstrap.connect(host: "127.0.0.1", port: port).flatMap { channel in
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: host ?? "127.0.0.1:\(port)")
        if let origin { headers.add(name: "Origin", value: origin) }
        headers.add(name: "Connection", value: "close")
        if let body {
            headers.add(name: "Content-Type", value: "application/json")
            headers.add(name: "Content-Length", value: String(body.count))
        }
        channel.write(
            HTTPClientRequestPart.head(HTTPRequestHead(version: .http1_1, method: method, uri: path, headers: headers)),
            promise: nil)
        if let body {
            var buffer = channel.allocator.buffer(capacity: body.count)
            buffer.writeBytes(body)
            channel.write(HTTPClientRequestPart.body(.byteBuffer(buffer)), promise: nil)
        }
        return channel.writeAndFlush(HTTPClientRequestPart.end(nil))
            .flatMap { done.futureResult }
            .always { _ in channel.close(promise: nil) }
    }.flatMapError { error in
        done.fail(error)
        return done.futureResult
    }
}

/// ``httpResponse(port:method:path:host:origin:body:)``, waited for.
package func httpRequest(
    port: Int, method: HTTPMethod, path: String, host: String? = nil, origin: String? = nil, body: [UInt8]?
) throws -> (Int, String) {
    try httpResponse(port: port, method: method, path: path, host: host, origin: origin, body: body).wait()
}

/// ``httpResponse(port:method:path:host:origin:body:)`` for async callers (the WebDriver
/// client's transport): it suspends instead of blocking a thread of the cooperative pool (the
/// browser tests make thousands of these calls; blocking, they held one of this machine's two
/// pool threads for the whole browser suite, and every other test waited for the other).
package func httpRequestAsync(
    port: Int, method: HTTPMethod, path: String, host: String? = nil, origin: String? = nil, body: [UInt8]?
) async throws -> (Int, String) {
    try await httpResponse(port: port, method: method, path: path, host: host, origin: origin, body: body).get()
}

package final class ResponseReader: ChannelInboundHandler {
    package typealias InboundIn = HTTPClientResponsePart
    package let promise: EventLoopPromise<(Int, String)>
    private var status = 0
    private var body = ""
    private var done = false
    package init(promise: EventLoopPromise<(Int, String)>) { self.promise = promise }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): status = Int(head.status.code)
        case .body(let buffer): body += String(buffer: buffer)
        case .end:
            done = true
            promise.succeed((status, body))
        }
    }

    package func channelInactive(context: ChannelHandlerContext) {
        if !done { promise.fail(PageClient.Failure.timeout("the connection closed before the response")) }
        done = true
        context.fireChannelInactive()
    }
}

/// Parses a JSON message (Foundation, tests only).
package func object(_ text: String) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
}
