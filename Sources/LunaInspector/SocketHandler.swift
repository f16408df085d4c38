import LunaLive
import NIOCore
import NIOWebSocket
import RouteCore

/// One page's WebSocket: it gets the snapshot when it connects, every event after, and a
/// reply to each request it sends. Requests run on the inspector's work queue, never on the
/// event loop; a malformed, oversized or unknown message gets an error reply and the page
/// stays connected.
final class SocketHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let inspector: Inspector
    private var pending: [UInt8] = []
    private var pendingIsText = false

    init(inspector: Inspector) { self.inspector = inspector }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        inspector.clients.add(channel)
        let inspector = self.inspector
        inspector.work.async {
            Clients.send(inspector.snapshotMessage(), to: channel)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        inspector.clients.remove(context.channel)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
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
                    Messages.failure(
                        id: nil, kind: "invalidMessage",
                        message: "the message is larger than \(inspector.configuration.maxMessageBytes) bytes"), context
                )
            }
            guard frame.fin else { return }
            let bytes = pending
            pending = []
            guard pendingIsText, let text = String(validUTF8: bytes) else {
                return reply(
                    Messages.failure(id: nil, kind: "invalidMessage", message: "messages are UTF-8 JSON text"), context)
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
        let request: PageRequest
        do { request = try PageRequest(parsing: text) } catch {
            return reply(Messages.failure(id: nil, kind: "invalidMessage", message: "\(error)"), context)
        }
        let channel = context.channel
        let inspector = self.inspector
        inspector.work.async {
            Clients.send(inspector.perform(request), to: channel)
        }
    }

    private func reply(_ text: String, _ context: ChannelHandlerContext) {
        Clients.send(text, to: context.channel)
    }
}
