import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// A small HTTP/1.1 listener for Prometheus: `GET /metrics` answers the text exposition `render` makes, `GET /healthz`
/// 200 while `healthy` holds (503 otherwise); anything else is 404. As a service it stops on graceful shutdown or
/// cancellation. One event-loop thread: a scrape every few seconds needs no more.
public final class MetricsServer: Service, Sendable {
    public let host: String
    public let port: Int
    private let render: @Sendable () -> [UInt8]
    private let healthy: @Sendable () -> Bool
    private let logger: Logger

    /// - Parameter port: 0 picks a free port (logged as the address it listens on).
    public init(
        host: String, port: Int, logger: Logger, healthy: @escaping @Sendable () -> Bool = { true },
        render: @escaping @Sendable () -> [UInt8]
    ) {
        self.host = host
        self.port = port
        self.render = render
        self.healthy = healthy
        self.logger = logger
    }

    public func run() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let render = render
        let healthy = healthy
        let channel: Channel
        do {
            channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        try channel.pipeline.syncOperations.addHandler(MetricsHandler(render: render, healthy: healthy))
                    }
                }
                .bind(host: host, port: port).get()
        } catch {
            try? await group.shutdownGracefully()
            throw MetricsError("cannot listen on \(host):\(port) for metrics: \(error)")
        }
        logger.notice("metrics at http://\(host):\(channel.localAddress?.port ?? port)/metrics")
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

/// The metrics address could not be used.
public struct MetricsError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// One request at a time per connection; every answer closes the connection (scrapers reconnect cheaply).
private final class MetricsHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let render: @Sendable () -> [UInt8]
    private let healthy: @Sendable () -> Bool
    private var request: HTTPRequestHead?

    init(render: @escaping @Sendable () -> [UInt8], healthy: @escaping @Sendable () -> Bool) {
        self.render = render
        self.healthy = healthy
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): request = head
        case .body: break
        case .end:
            guard let head = request else { return }
            request = nil
            respond(to: head, context: context)
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        let status: HTTPResponseStatus
        let body: [UInt8]
        var type = "text/plain; charset=utf-8"
        switch (head.method, path) {
        case (.GET, "/metrics"), (.HEAD, "/metrics"):
            status = .ok
            body = render()
            type = "text/plain; version=0.0.4; charset=utf-8"
        case (.GET, "/healthz"), (.HEAD, "/healthz"):
            let ok = healthy()
            status = ok ? .ok : .serviceUnavailable
            body = Array((ok ? "ok\n" : "unhealthy\n").utf8)
        case (_, "/metrics"), (_, "/healthz"):
            status = .methodNotAllowed
            body = Array("GET only\n".utf8)
        default:
            status = .notFound
            body = Array("not found: /metrics and /healthz are served here\n".utf8)
        }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: type)
        headers.add(name: "Content-Length", value: "\(body.count)")
        headers.add(name: "Connection", value: "close")
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))),
            promise: nil)
        if head.method != .HEAD {
            context.write(
                wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        }
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}

/// Where metrics are served: `PORT` (loopback), or `HOST:PORT` / `[IPv6]:PORT` given explicitly.
public struct MetricsAddress: Sendable, Equatable, CustomStringConvertible {
    public let host: String
    public let port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Nil when `text` is not a port, `HOST:PORT` or `[IPv6]:PORT` with a port in 0...65535.
    public init?(parsing text: String) {
        var host = "127.0.0.1"
        var portText = Substring(text)
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            portText = rest.dropFirst()
        } else if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, let port = Int(portText), (0...65_535).contains(port) else { return nil }
        self.init(host: host, port: port)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
