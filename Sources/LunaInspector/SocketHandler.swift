import Dispatch
import LunaLive
import NIOCore
import NIOWebSocket
import RouteCore

/// One WebSocket: a page's (`/socket`: the snapshot when it connects, every event after) or a
/// linked app's (`/device`: after its hello, the plan of every change), and a reply to each
/// request it sends. Requests run on the inspector's work queue, never on the event loop; a
/// malformed, oversized or unknown message gets an error reply and the peer stays connected.
final class SocketHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    enum Role { case page, device }

    private let inspector: Inspector
    private let role: Role
    private var pending: [UInt8] = []
    private var pendingIsText = false
    /// When this page last sent anything (a pong counts): a page silent for the idle timeout
    /// is gone; the server pings it every third of that.
    private var lastHeard: NIOLoopBoundBox<NIODeadline>?
    private var keepAlive: RepeatedTask?

    init(inspector: Inspector, role: Role = .page) {
        self.inspector = inspector
        self.role = role
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        switch role {
        case .page:
            inspector.clients.add(channel)
            // The last snapshot at once (the session may be busy), then a fresh one.
            if let latest = inspector.latest.json() {
                Clients.send("{\"type\":\"snapshot\",\"snapshot\":" + latest + "}", to: channel)
            }
            schedule(channel) { inspector in "{\"type\":\"snapshot\",\"snapshot\":" + inspector.snapshot() + "}" }
        case .device:
            // Nothing is sent before the device's hello says what it holds.
            inspector.devices.add(channel)
        }
        let idle = inspector.configuration.socketIdleTimeout
        let tick = TimeAmount.nanoseconds(idle.nanoseconds / 3)
        // Read and written on this channel's event loop only (the box checks it).
        let heard = NIOLoopBoundBox(NIODeadline.now(), eventLoop: context.eventLoop)
        lastHeard = heard
        keepAlive = context.eventLoop.scheduleRepeatedTask(initialDelay: tick, delay: tick) { _ in
            if NIODeadline.now() - heard.value > idle {
                channel.close(promise: nil)
            } else {
                channel.writeAndFlush(
                    WebSocketFrame(fin: true, opcode: .ping, data: channel.allocator.buffer(capacity: 0)), promise: nil)
            }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        keepAlive?.cancel()
        keepAlive = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        switch role {
        case .page: inspector.clients.remove(context.channel)
        case .device: inspector.devices.remove(context.channel)
        }
        keepAlive?.cancel()
        keepAlive = nil
        Clients.giveMemoryBack()
        context.fireChannelInactive()
    }

    /// Runs `body` on the work queue for this page within its quota and the global one (a
    /// `busy` reply otherwise); a page that went away meanwhile has its queued work skipped.
    private func schedule(_ channel: any Channel, id: Int? = nil, _ body: @escaping @Sendable (Inspector) -> String?) {
        let inspector = self.inspector
        let owner = ObjectIdentifier(channel)
        guard
            inspector.limiter.enter(
                owner, limit: inspector.configuration.maxRequestsPerPage,
                total: inspector.configuration.maxQueuedRequests)
        else {
            return Clients.send(
                Messages.failure(
                    id: id,
                    Failure(
                        kind: "busy",
                        message:
                            "too many requests in flight (\(inspector.configuration.maxRequestsPerPage) per page); send the next when one is answered"
                    )
                ), to: channel)
        }
        inspector.work.async {
            defer { inspector.limiter.leave(owner) }
            guard channel.isActive, let reply = body(inspector) else { return }
            Clients.send(reply, to: channel)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        lastHeard?.value = .now()
        // No extension is negotiated, so a frame with a reserved bit set breaks the protocol
        // (RFC 6455 §5.2): the connection fails.
        if frame.rsv1 || frame.rsv2 || frame.rsv3 {
            var data = context.channel.allocator.buffer(capacity: 2)
            data.writeInteger(UInt16(1002))
            let close = WebSocketFrame(fin: true, opcode: .connectionClose, data: data)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(close)).whenComplete { _ in channel.close(promise: nil) }
            return
        }
        switch frame.opcode {
        case .text, .continuation, .binary:
            if frame.opcode != .continuation {
                pending = []
                pendingIsText = frame.opcode == .text
            }
            var data = frame.unmaskedData
            pending += data.readBytes(length: data.readableBytes) ?? []
            guard pending.count <= inspector.configuration.maxMessageBytes else {
                pending = []
                return reply(
                    Messages.invalidMessage(
                        id: nil, "the message is larger than \(inspector.configuration.maxMessageBytes) bytes"),
                    context
                )
            }
            guard frame.fin else { return }
            let bytes = pending
            pending = []
            guard pendingIsText, let text = String(validUTF8: bytes) else {
                return reply(
                    Messages.invalidMessage(id: nil, "messages are UTF-8 JSON text"), context)
            }
            handle(text, context)
        case .ping:
            var data = frame.unmaskedData
            context.writeAndFlush(
                wrapOutboundOut(
                    WebSocketFrame(fin: true, opcode: .pong, data: data.readSlice(length: data.readableBytes) ?? data)),
                promise: nil)
        case .connectionClose:
            let channel = context.channel
            let close = WebSocketFrame(fin: true, opcode: .connectionClose, data: channel.allocator.buffer(capacity: 0))
            context.writeAndFlush(wrapOutboundOut(close)).whenComplete { _ in channel.close(promise: nil) }
        default:
            break
        }
    }

    private func handle(_ text: String, _ context: ChannelHandlerContext) {
        if role == .device { return handleDevice(text, context) }
        let request: PageRequest
        do { request = try PageRequest(parsing: text) } catch {
            // The reply keeps the message's id when it has one, so the page can match it.
            let id = (try? JSONValue.parse(text))?["id"]?.integer
            return reply(
                Messages.invalidMessage(id: id, "\(error)"), context)
        }
        schedule(context.channel, id: request.id) { inspector in inspector.perform(request) }
    }

    private func handleDevice(_ text: String, _ context: ChannelHandlerContext) {
        let request: DeviceRequest
        do { request = try DeviceRequest(parsing: text) } catch {
            let id = (try? JSONValue.parse(text))?["id"]?.integer
            return reply(Messages.invalidMessage(id: id, error.description), context)
        }
        let channel = context.channel
        schedule(channel, id: request.id) { inspector in inspector.perform(request, device: channel) }
    }

    private func reply(_ text: String, _ context: ChannelHandlerContext) {
        Clients.send(text, to: context.channel)
    }
}
