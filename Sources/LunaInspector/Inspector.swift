import Dispatch
import LunaLive
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import RouteCore
import RouteScript

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The live inspector: a local HTTP and WebSocket server (SwiftNIO) that serves the page and
/// keeps every open page in step with a ``LiveSession``.
///
/// It binds 127.0.0.1 unless told otherwise, refuses requests whose `Host` is not its own
/// address (DNS rebinding) and socket or API calls from a foreign `Origin`, and requires a
/// random token (in the printed URL) for the page, the API and the socket. A page can
/// dispatch, go back, sync, explain, travel in history, set flags and device and reload; it
/// can never run Lua or read a file.
///
/// ```swift
/// let inspector = Inspector(session: session, scriptName: "books.lua")
/// let url = try inspector.start()     // http://127.0.0.1:54321/?token=…
/// ```
// Unchecked: `serverChannel`, `observer`, `allowedHosts` and `reachable` are written only by `start` and
// `stop` (before the server accepts and after it closed); `lastRoutes` only by `broadcast`,
// under the session's lock; the counters and the last snapshot are `Locked`. The event loops read the rest, which is immutable.
package final class Inspector: @unchecked Sendable {
    package struct Configuration: Sendable {
        /// The address to bind (loopback unless the user asks).
        package var host = "127.0.0.1"
        /// 0 picks a free port.
        package var port = 0
        /// The token; a random one when nil (kept in `tokenFile` when that is set).
        package var token: String?
        /// Where the token of a server on a fixed port is kept across restarts (owner-only), so
        /// open pages reconnect to a restarted server; nil: a new token every start.
        package var tokenFile: String?
        /// The largest WebSocket message accepted.
        package var maxMessageBytes = 64 * 1024
        /// Bytes queued to one page before it counts as too slow and is disconnected (it
        /// catches up when it reconnects). Its first snapshot counts too.
        package var maxQueuedBytes = 1024 * 1024
        /// Time a connection has to send a whole request head (and, kept alive, the next one).
        package var headerTimeout: TimeAmount = .seconds(10)
        /// A page that sends nothing (not even the pong to the server's ping every third of
        /// this) for this long is disconnected.
        package var socketIdleTimeout: TimeAmount = .seconds(90)
        /// Connections open at once; more are closed at once. Below the process's file limit
        /// (nil: 512, or that limit less 32 when it is lower), so the server can always accept.
        package var maxConnections: Int?
        /// Requests of one page in flight (queued or running); more get a `busy` reply.
        package var maxRequestsPerPage = 8
        /// Requests of all pages in flight; more get a `busy` reply.
        package var maxQueuedRequests = 64

        package init() {}
    }

    package let session: LiveSession
    package let configuration: Configuration
    package let token: String
    let scriptName: String
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private var serverChannel: (any Channel)?
    private var observer: ObserverToken?
    /// Session operations the pages ask for run here, never on the event loop.
    let work = DispatchQueue(label: "luna.inspector.session")
    let clients = Clients()
    /// The linked apps (`/device`).
    let devices = Devices()
    let limiter = WorkLimiter()
    /// Connections open now (the cap is ``connectionLimit``).
    private let connections = Locked(0)
    /// The last full snapshot, served while the session is busy (and at once to a page that
    /// connects): kept as a value and encoded when a page needs it, so a reload at 10,000
    /// routes does not encode a megabyte no page reads.
    let latest: LatestSnapshot
    /// The route table (and entries) the last broadcast sent; written only by `broadcast`,
    /// which runs under the session's lock.
    private var lastRoutes: (rows: [RouteRow], entries: [String: String], screenRows: String, tree: ObjectIdentifier?)?
    /// Host header values accepted (set once bound).
    private(set) var allowedHosts: Set<String> = []

    package init(session: LiveSession, scriptName: String, configuration: Configuration = .init()) {
        self.session = session
        self.configuration = configuration
        self.scriptName = scriptName
        self.latest = LatestSnapshot(script: scriptName)
        self.token =
            configuration.token ?? configuration.tokenFile.map { TokenFile.token(at: $0, fresh: Self.randomToken) }
            ?? Self.randomToken()
        self.connectionLimit = Self.connectionLimit(configuration.maxConnections)
    }

    /// Binds and starts serving; returns the page's URL (with the token).
    @discardableResult
    package func start() throws -> String {
        let upgrader = NIOWebSocketServerUpgrader(
            maxFrameSize: configuration.maxMessageBytes, automaticErrorHandling: true,
            shouldUpgrade: { [self] channel, head in
                let path = String(head.uri.prefix { $0 != "?" })
                let allowed = self.permits(head, needsToken: true) == nil && (path == "/socket" || path == "/device")
                return channel.eventLoop.makeSucceededFuture(allowed ? HTTPHeaders() : nil)
            },
            upgradePipelineHandler: { [self] channel, head in
                let role: SocketHandler.Role = head.uri.hasPrefix("/device") ? .device : .page
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(SocketHandler(inspector: self, role: role))
                }
            })
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(
                .writeBufferWaterMark, value: .init(low: 64 * 1024, high: configuration.maxQueuedBytes)
            )
            .childChannelInitializer { [self] channel in
                // A connection over the cap is closed at once; each one leaves the count when
                // it closes.
                let open = connections.withLock { count in
                    count += 1
                    return count
                }
                channel.closeFuture.whenComplete { [connections] _ in connections.withLock { $0 -= 1 } }
                guard open <= connectionLimit else { return channel.close() }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                        withServerUpgrade: (
                            upgraders: [upgrader],
                            completionHandler: { context in
                                // After the upgrade the bytes are WebSocket frames, not HTTP.
                                let pipeline = context.pipeline.syncOperations
                                if let http = try? pipeline.handler(type: HTTPHandler.self) {
                                    pipeline.removeHandler(http, promise: nil)
                                }
                            }
                        ))
                    try channel.pipeline.syncOperations.addHandler(HTTPHandler(inspector: self))
                }
            }
        let channel = try bootstrap.bind(host: configuration.host, port: configuration.port).wait()
        serverChannel = channel
        let port = channel.localAddress?.port ?? configuration.port
        var hosts: Set<String> = ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"]
        hosts.insert(Self.hostHeader(configuration.host, port))
        // Bound to every interface: a device on the network names this machine by one of its
        // interfaces' addresses, and those are its own (never a name a rebinding page controls).
        reachable = Self.interfaceAddresses(for: configuration.host)
        for address in reachable { hosts.insert(Self.hostHeader(address, port)) }
        allowedHosts = hosts
        observer = session.observe { [weak self] event, reader in self?.broadcast(event, reader) }
        return url
    }

    /// Linked apps connected now (`/device`), said hello or not.
    package var deviceCount: Int { devices.count }

    /// The addresses other machines reach this server on when it is bound to every interface
    /// (`--host 0.0.0.0` or `::`): each interface's own address but loopback. Empty otherwise.
    package private(set) var reachable: [String] = []

    /// The page's URL on each address of ``reachable``.
    package var reachableURLs: [String] {
        reachable.map { "http://\(Self.hostHeader($0, port))/?token=\(token)" }
    }

    static func interfaceAddresses(for bound: String) -> [String] {
        let ipv4 = bound == "0.0.0.0"
        guard ipv4 || bound == "::" else { return [] }
        var addresses: [String] = []
        for device in (try? System.enumerateDevices()) ?? [] {
            guard let address = device.address, let ip = address.ipAddress else { continue }
            switch address {
            case .v4: if ip.hasPrefix("127.") { continue }
            case .v6: if ipv4 || ip == "::1" || ip.lowercased().hasPrefix("fe80") { continue }
            default: continue
            }
            if !addresses.contains(ip) { addresses.append(ip) }
        }
        return addresses
    }

    /// The bound port.
    package var port: Int { serverChannel?.localAddress?.port ?? configuration.port }

    /// The page's address, token included.
    package var url: String { "http://\(Self.hostHeader(configuration.host, port))/?token=\(token)" }

    /// Stops serving and disconnects every page.
    package func stop() {
        observer?.cancel()
        observer = nil
        clients.closeAll()
        devices.closeAll()
        try? serverChannel?.close().wait()
        serverChannel = nil
        try? group.syncShutdownGracefully()
    }

    /// The connection cap: the configured one, or 512, kept 32 below the file limit (read
    /// once, when the inspector is made).
    private let connectionLimit: Int

    private static func connectionLimit(_ configured: Int?) -> Int {
        if let configured { return configured }
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 512 }
        return max(8, min(512, Int(clamping: limit.rlim_cur) - 32))
    }

    static func hostHeader(_ host: String, _ port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    // MARK: Security

    /// Why a request is refused (nil: allowed): a foreign Host (DNS rebinding), a foreign
    /// Origin, or a missing or wrong token.
    func permits(_ head: HTTPRequestHead, needsToken: Bool) -> (status: HTTPResponseStatus, reason: String)? {
        // Two Host or Origin headers make a request ambiguous (RFC 9110 §7.2): refused whole,
        // whichever comes first.
        let hosts = head.headers["host"]
        guard hosts.count <= 1, head.headers["origin"].count <= 1 else {
            return (.badRequest, "a request has one Host and at most one Origin header")
        }
        guard let host = hosts.first, allowedHosts.contains(host.lowercased()) else {
            return (.misdirectedRequest, "this server answers only to its own address")
        }
        if let origin = head.headers.first(name: "origin"),
            !allowedHosts.contains(where: { "http://" + $0 == origin.lowercased() })
        {
            return (.forbidden, "requests from another origin are refused")
        }
        if needsToken {
            guard let given = Self.query(head.uri)["token"], Self.constantTimeEqual(given, token) else {
                return (.forbidden, "a valid token is required (it is in the URL luna printed)")
            }
        }
        return nil
    }

    static func query(_ uri: String) -> [String: String] {
        guard let mark = uri.firstIndex(of: "?") else { return [:] }
        var result: [String: String] = [:]
        for pair in uri[uri.index(after: mark)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            result[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
        }
        return result
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }

    /// 32 hex digits from the system's random source.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in
            let value = generator.next() as UInt32
            let hex = String(value, radix: 16)
            return String(repeating: "0", count: 8 - hex.count) + hex
        }.joined()
    }

    // MARK: Events

    /// Sends an event to every page; called under the session's lock, so it only encodes
    /// and hands the text to each page's event loop.
    private func broadcast(_ event: LiveEvent, _ reader: SessionReader) {
        sendToDevices(reader)
        let reloaded = event.kind == .reloaded || event.kind == .deviceChanged
        var snapshot = reader.snapshot(routes: reloaded)
        guard let routes = snapshot.routes else {
            return clients.send(Messages.event(event, snapshot: snapshot.json(script: scriptName)))
        }
        // Pages connecting later get the whole snapshot.
        latest.keep(snapshot)
        let table = (
            rows: routes, entries: snapshot.entries ?? [:], screenRows: snapshot.screenRows ?? "",
            tree: snapshot.routeTable.map { ObjectIdentifier($0.tree) }
        )
        guard let last = lastRoutes else {
            lastRoutes = table
            return clients.send(Messages.event(event, snapshot: snapshot.json(script: scriptName)))
        }
        // The pages hold the last table: they get what changed (compared as values, so an
        // unchanged table of 10,000 rows is not encoded to be compared), not the table again,
        // and keep their history list (the event's entry is appended).
        lastRoutes = table
        // The rows the reload's change set made, when the pages hold the table they were made
        // from; else the tables compared.
        let basis = snapshot.routeTable?.basis
        let patch = RoutePatch(
            from: last.rows, to: table.rows, made: basis.flatMap { $0.tree == last.tree ? $0.made : nil })
        snapshot.routes = nil
        snapshot.history = nil
        if last.entries == table.entries { snapshot.entries = nil }
        if last.screenRows == table.screenRows { snapshot.screenRows = nil }
        clients.send(
            Messages.event(
                event, snapshot: snapshot.json(script: scriptName), routePatch: patch.isEmpty ? nil : patch.json))
    }

    /// The whole state a page draws, as JSON.
    func snapshot() -> String {
        guard case .snapshot(let view)? = try? session.perform(.snapshot(routes: true)) else { return "null" }
        return latest.keepEncoded(view)
    }

    /// A fresh snapshot when the session is free; while it works (a slow dispatch), the last
    /// one with `"busy": true`, so the network side never waits on the session.
    func snapshotWithoutWaiting() -> String? {
        if case .snapshot(let view)? = (try? session.performIfFree(.snapshot(routes: true))) ?? nil {
            return latest.keepEncoded(view)
        }
        return latest.json().map { "{\"busy\":true," + $0.dropFirst() }
    }
}

/// The last full snapshot: a value until a page needs its JSON, then the JSON too.
final class LatestSnapshot: Sendable {
    private let script: String
    private let stored = Locked<(view: SnapshotView?, json: String?)>((nil, nil))

    init(script: String) { self.script = script }

    /// Keeps `view`, to be encoded when a page needs it.
    func keep(_ view: SnapshotView) { stored.withLock { $0 = (view, nil) } }

    /// Keeps `view` and returns its JSON (encoded now: a page is waiting for it).
    func keepEncoded(_ view: SnapshotView) -> String {
        let json = view.json(script: script)
        stored.withLock { $0 = (view, json) }
        return json
    }

    /// The JSON of the last snapshot kept, if any (encoded once).
    func json() -> String? {
        stored.withLock { stored in
            if let json = stored.json { return json }
            guard let view = stored.view else { return nil }
            let json = view.json(script: script)
            stored.json = json
            return json
        }
    }
}

/// What changed in the route table between two reloads, by route id: the rows that are new or
/// differ, the ids gone, and the order of ids only when it changed.
struct RoutePatch {
    var rows: [RouteRow] = []
    var removed: [String] = []
    var order: [String]?

    /// `made`: the positions of the rows the route table made for `new` from `old` (a reload's
    /// change set said what changed: the other rows are `old`'s); nil compares the rows.
    init(from old: [RouteRow], to new: [RouteRow], made: [Int]? = nil) {
        // The usual save keeps every route in place: the rows made are the patch (or the rows
        // compared by index, no dictionary: a zip copied every row of both tables).
        if old.count == new.count, old.indices.allSatisfy({ old[$0].id == new[$0].id }) {
            if let made {
                rows = made.map { new[$0] }.filter { row in old[row.rank - 1] != row }
            } else {
                for index in new.indices where old[index] != new[index] { rows.append(new[index]) }
            }
            return
        }
        var before: [String: RouteRow] = [:]
        for row in old { before[row.id] = row }
        for row in new where before[row.id] != row { rows.append(row) }
        let kept = Set(new.map(\.id))
        removed = old.map(\.id).filter { !kept.contains($0) }
        if !old.map(\.id).elementsEqual(new.map(\.id)) { order = new.map(\.id) }
    }

    var isEmpty: Bool { rows.isEmpty && removed.isEmpty && order == nil }

    var json: String {
        JSONWriter.object([
            "rows": JSONWriter.array(rows.map(\.json)), "removed": JSONWriter.array(removed.map(JSONWriter.quoted)),
            "order": order.map { JSONWriter.array($0.map(JSONWriter.quoted)) } ?? "null",
        ])
    }
}

/// Counts work in flight, per owner and in all, against limits (page requests).
final class WorkLimiter: Sendable {
    private struct Counts {
        var perOwner: [ObjectIdentifier: Int] = [:]
        var total = 0
    }
    private let counts = Locked(Counts())

    /// Counts one more for `owner` when both limits allow it.
    func enter(_ owner: ObjectIdentifier, limit: Int, total maximum: Int) -> Bool {
        counts.withLock { counts in
            let mine = counts.perOwner[owner, default: 0]
            guard mine < limit, counts.total < maximum else { return false }
            counts.perOwner[owner] = mine + 1
            counts.total += 1
            return true
        }
    }

    func leave(_ owner: ObjectIdentifier) {
        counts.withLock { counts in
            guard let mine = counts.perOwner[owner] else { return }
            counts.perOwner[owner] = mine > 1 ? mine - 1 : nil
            counts.total -= 1
        }
    }
}

/// The pages connected over WebSocket, and a bounded, non-blocking send to each.
final class Clients: Sendable {
    private let channels = Locked<[ObjectIdentifier: any Channel]>([:])

    func add(_ channel: any Channel) { channels.withLock { $0[ObjectIdentifier(channel)] = channel } }
    func remove(_ channel: any Channel) { channels.withLock { $0[ObjectIdentifier(channel)] = nil } }

    /// Queues `text` to every page on its own event loop; a page that stopped reading (its
    /// queue is over the high-water mark) is disconnected instead of holding anyone up.
    func send(_ text: String) {
        for channel in channels.withLock({ Array($0.values) }) { Self.send(text, to: channel) }
    }

    static func send(_ text: String, to channel: any Channel) {
        channel.eventLoop.execute {
            guard channel.isActive else { return }
            guard channel.isWritable else {
                channel.close(promise: nil)
                return
            }
            var buffer = channel.allocator.buffer(capacity: text.utf8.count)
            buffer.writeString(text)
            channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .text, data: buffer), promise: nil)
        }
    }

    func closeAll() {
        for channel in channels.withLock({ Array($0.values) }) { channel.close(promise: nil) }
    }

    #if canImport(Glibc)
        // glibc declares `int malloc_trim(size_t pad)`: the symbol is cast to exactly that C
        // signature, and left alone when this libc has none.
        private static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
            return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        }()
    #endif

    /// Returns freed heap to the system once a page has gone (glibc keeps it otherwise).
    static func giveMemoryBack() {
        #if canImport(Glibc)
            // malloc_trim is glibc's (not in the Glibc module's headers): looked up once.
            if let trim = Self.mallocTrim { _ = trim(0) }
        #endif
    }

}
