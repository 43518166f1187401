import DriftCore
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// A small HTTP/1.1 listener for Prometheus: `GET /metrics` answers the text exposition `render` makes, `GET /healthz`
/// 200 while `healthy` holds (503 otherwise); another path is 404, another method 405. As a service it stops on
/// graceful shutdown or cancellation. One event-loop thread: a scrape every few seconds needs no more.
///
/// What it serves names devices (from folder names), files' drift and the run's progress, with no TLS and no
/// authentication: it listens on loopback unless the address says `onNetwork` (the caller's acknowledgement), and
/// refuses to start otherwise. Every connection is bounded: one request, a head of at most `Limits.headBytes` (the
/// HTTP parser's own bound) within `headSeconds` of accept, and `connectionSeconds` from accept to answer (idle and
/// slow clients are closed, with 408 when a request had begun); a malformed request gets 400, an oversized head 431.
/// At most `connections` are open at once, and a new one is never refused for them: the oldest that has not sent a
/// whole head yet (idle, or a slowloris) is closed to make room, so no client holding connections open keeps a
/// scrape out (as Go's server, which Prometheus exporters use, serves on under such load).
public final class MetricsServer: Service, Sendable {
    /// The bounds every connection lives within.
    public struct Limits: Sendable {
        /// Bytes of request line and headers: NIO's HTTP parser's own bound (larger is 431).
        public static let headBytes = 80 * 1024
        /// Seconds from accept to answer; a connection still without a whole request then is closed.
        public var connectionSeconds: Double
        /// Seconds from accept to a whole request head (a scraper sends it at once).
        public var headSeconds: Double
        /// Connections open at once; a new one beyond them closes the oldest without a whole head. (Each is a file
        /// descriptor of the process: 256 leave a night most of the usual 1,024.)
        public var connections: Int

        public init(connectionSeconds: Double = 10, headSeconds: Double = 3, connections: Int = 256) {
            self.connectionSeconds = connectionSeconds
            self.headSeconds = headSeconds
            self.connections = connections
        }
    }

    public let address: MetricsAddress
    public let limits: Limits
    private let render: @Sendable () -> [UInt8]
    private let healthy: @Sendable () -> Bool
    private let logger: Logger

    public var host: String { address.host }
    public var port: Int { address.port }

    /// - Parameter address: port 0 picks a free port (logged as the address it listens on).
    /// - Throws: `MetricsError.onNetwork` when the address is not loopback and was not acknowledged as public.
    public init(
        address: MetricsAddress, limits: Limits = Limits(), logger: Logger,
        healthy: @escaping @Sendable () -> Bool = { true }, render: @escaping @Sendable () -> [UInt8]
    ) throws(MetricsError) {
        if let refusal = address.refusal { throw refusal }
        self.address = address
        self.limits = limits
        self.render = render
        self.healthy = healthy
        self.logger = logger
    }

    /// Serves until cancelled or a graceful shutdown (the `Service` entry point).
    public func run() async throws { try await run(listening: { _ in }) }

    /// Serves until cancelled or a graceful shutdown.
    /// - Parameter listening: called once with the address actually bound (port 0 made concrete), so a caller waits
    ///   for the event instead of polling the port.
    public func run(listening: @Sendable (MetricsAddress) -> Void) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        // One loop accepts and serves every connection, so the open ones are kept on it without locks.
        let loop = group.next()
        let render = render
        let healthy = healthy
        let open = NIOLoopBoundBox.makeBoxSendingValue(OpenConnections(), eventLoop: loop)
        let limits = limits
        let channel: Channel
        do {
            channel = try await ServerBootstrap(group: loop)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .serverChannelOption(.backlog, value: 1024)
                // Accepts drained in batches: a flood of connections must not fill the backlog, where the kernel
                // drops a scraper's SYN (retried only a second later). A batch is well under a quarter of the
                // connections, so a scraper's connection is read (its head arrives) before a flood accepted after
                // it could make it the oldest.
                .serverChannelOption(.maxMessagesPerRead, value: UInt(max(1, min(64, limits.connections / 4))))
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let connection = open.value.admit(channel, limit: limits.connections)
                        channel.closeFuture.whenComplete { _ in open.value.remove(connection) }
                        // One request per connection, so no pipelining assistance; parse errors reach the handler
                        // (400, 431) instead of NIO's own error handler (400 for all).
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                            withPipeliningAssistance: false, withErrorHandling: false)
                        try channel.pipeline.syncOperations.addHandler(
                            MetricsHandler(
                                render: render, healthy: healthy, limits: limits,
                                headArrived: { open.value.headArrived(connection) }))
                    }
                }
                .bind(host: address.host, port: address.port).get()
        } catch {
            try? await group.shutdownGracefully()
            throw MetricsError.cannotListen(address: address.description, reason: "\(error)")
        }
        let shown = MetricsAddress(
            host: address.host, port: channel.localAddress?.port ?? address.port, onNetwork: address.onNetwork)
        listening(shown)
        if address.isLoopback {
            logger.notice("metrics at http://\(shown)/metrics")
        } else {
            logger.warning(
                "metrics at http://\(shown)/metrics, on the network without TLS or authentication: anyone who reaches it reads the run's progress, drift and device names"
            )
        }
        let (stop, stopper) = AsyncStream<Void>.makeStream()
        await withTaskCancellationOrGracefulShutdownHandler {
            for await _ in stop {}
        } onCancelOrGracefulShutdown: {
            stopper.finish()
        }
        try? await channel.close()
        try? await group.shutdownGracefully()
    }
}

/// Connections open on one listener, in the order they were accepted; used on its event loop only.
private final class OpenConnections {
    private struct Entry {
        let id: Int
        let channel: Channel
        var headArrived = false
    }
    private var entries: [Entry] = []
    private var next = 0

    /// Registers a new connection; when `limit` are open, first closes the oldest that has not sent a whole head (a
    /// connection being answered is left to finish). Returns the new connection's id.
    func admit(_ channel: Channel, limit: Int) -> Int {
        if entries.count >= limit, let oldest = entries.firstIndex(where: { !$0.headArrived }) {
            let evicted = entries.remove(at: oldest)
            evicted.channel.close(promise: nil)
        }
        next += 1
        entries.append(Entry(id: next, channel: channel))
        return next
    }

    func headArrived(_ id: Int) {
        if let index = entries.firstIndex(where: { $0.id == id }) { entries[index].headArrived = true }
    }

    func remove(_ id: Int) { entries.removeAll { $0.id == id } }
}

/// One request per connection; every answer closes the connection (scrapers reconnect cheaply). A connection gets
/// `headSeconds` from accept to a whole head and `connectionSeconds` to a whole request.
private final class MetricsHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let render: @Sendable () -> [UInt8]
    private let healthy: @Sendable () -> Bool
    private let headArrived: () -> Void
    private var request: HTTPRequestHead?
    private var begun = false
    private var answered = false
    private var headDeadline: Scheduled<Void>?
    private var deadline: Scheduled<Void>?
    private let limits: MetricsServer.Limits

    init(
        render: @escaping @Sendable () -> [UInt8], healthy: @escaping @Sendable () -> Bool,
        limits: MetricsServer.Limits, headArrived: @escaping () -> Void
    ) {
        self.render = render
        self.healthy = healthy
        self.limits = limits
        self.headArrived = headArrived
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loop = context.eventLoop
        let bound = NIOLoopBound((self, context), eventLoop: loop)
        @Sendable func expire() {
            let (handler, context) = bound.value
            if handler.begun {
                handler.answer(.requestTimeout, "no whole request within the time allowed\n", context: context)
            } else {
                context.close(promise: nil)
            }
        }
        let head = min(limits.headSeconds, limits.connectionSeconds)
        headDeadline = loop.scheduleTask(in: .milliseconds(Int64(head * 1000))) { expire() }
        deadline = loop.scheduleTask(in: .milliseconds(Int64(limits.connectionSeconds * 1000))) { expire() }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        headDeadline?.cancel()
        deadline?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        begun = true
        switch unwrapInboundIn(data) {
        case .head(let head):
            request = head
            headDeadline?.cancel()
            headArrived()
        case .body: break
        case .end:
            guard let head = request else { return }
            request = nil
            respond(to: head, context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // The parser's verdicts: an oversized head is 431, anything else it cannot read 400.
        if let parse = error as? HTTPParserError {
            if case .headerOverflow = parse {
                answer(.requestHeaderFieldsTooLarge, "request head too large\n", context: context)
            } else {
                answer(.badRequest, "malformed request\n", context: context)
            }
        } else {
            context.close(promise: nil)
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        guard head.method == .GET || head.method == .HEAD else {
            answer(.methodNotAllowed, "GET or HEAD only\n", context: context, extra: [("Allow", "GET, HEAD")])
            return
        }
        switch path {
        case "/metrics":
            answer(
                .ok, render(), context: context, type: "text/plain; version=0.0.4; charset=utf-8",
                withBody: head.method != .HEAD)
        case "/healthz":
            let ok = healthy()
            answer(
                ok ? .ok : .serviceUnavailable, ok ? "ok\n" : "unhealthy\n", context: context,
                withBody: head.method != .HEAD)
        default:
            answer(
                .notFound, "not found: /metrics and /healthz are served here\n", context: context,
                withBody: head.method != .HEAD)
        }
    }

    private func answer(
        _ status: HTTPResponseStatus, _ text: String, context: ChannelHandlerContext,
        extra: [(String, String)] = [], withBody: Bool = true
    ) {
        answer(status, Array(text.utf8), context: context, extra: extra, withBody: withBody)
    }

    /// Writes one answer and closes the connection (once: a parse error after an answer changes nothing).
    private func answer(
        _ status: HTTPResponseStatus, _ body: [UInt8], context: ChannelHandlerContext,
        type: String = "text/plain; charset=utf-8", extra: [(String, String)] = [], withBody: Bool = true
    ) {
        guard !answered else { return }
        answered = true
        headDeadline?.cancel()
        deadline?.cancel()
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: type)
        headers.add(name: "Content-Length", value: "\(body.count)")
        headers.add(name: "Connection", value: "close")
        for (name, value) in extra { headers.add(name: name, value: value) }
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
            promise: nil)
        if withBody {
            context.write(
                wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        }
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}
