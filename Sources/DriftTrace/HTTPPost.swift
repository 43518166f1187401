import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where spans go: an OTLP/HTTP endpoint, `http://host:port/path`.
public struct CollectorEndpoint: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var path: String

    /// Parses `http://host[:port][/path]` (IPv6 hosts in brackets). TLS is not spoken here: a collector agent on the
    /// machine or in the pod, reached over plain HTTP, forwards to a remote one over TLS (the usual deployment).
    public init(_ url: String) throws(TraceSettingsError) {
        guard url.hasPrefix("http://") else {
            throw .invalid(
                "OTLP endpoint \(url): only http:// is supported (send to a collector agent beside driftfix for TLS)")
        }
        // The URL goes into the request line and the Host header: a space or a control character would write
        // request text of its own.
        if url.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) {
            throw .invalid("OTLP endpoint \(url.debugDescription): holds a space or a control character")
        }
        let rest = url.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" }
        path = rest.count > authority.count ? String(rest.dropFirst(authority.count)) : "/"
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw .invalid("OTLP endpoint \(url): an IPv6 address in brackets needs its closing ]")
            }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let tail = authority[authority.index(after: close)...]
            port = tail.isEmpty ? 80 : tail.hasPrefix(":") ? Int(tail.dropFirst()) ?? -1 : -1
        } else if authority.contains("[") || authority.contains("]") || authority.contains("@") {
            throw .invalid("OTLP endpoint \(url): not a host and port (IPv6 addresses go in brackets, and no user@)")
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            port = Int(authority[authority.index(after: colon)...]) ?? -1
        } else {
            host = String(authority)
            port = 80
        }
        guard !host.isEmpty, (1...65535).contains(port) else {
            throw .invalid("OTLP endpoint \(url): no host and port")
        }
    }

    public var description: String {
        "http://\(host.contains(":") ? "[\(host)]" : host):\(port)\(path)"
    }
}

/// One HTTP/1.1 POST over a plain socket, bounded by a deadline: enough for OTLP/HTTP, with no event loop to start
/// in every worker. Runs on the exporter's thread only.
enum HTTPPost {
    enum Failure: Error, CustomStringConvertible {
        case connect(String)
        case io(String)
        case status(Int, String)

        var description: String {
            switch self {
            case .connect(let why): return "cannot connect: \(why)"
            case .io(let why): return why
            case .status(let code, let line): return "the collector answered \(code) (\(line))"
            }
        }
    }

    static func send(
        _ body: [UInt8], to endpoint: CollectorEndpoint, headers: [(String, String)], timeout: Double
    ) throws(Failure) {
        // One deadline for the whole request: connecting, sending and reading the answer.
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        func left() throws(Failure) -> Double {
            let remaining = (deadline - ContinuousClock.now).components
            let seconds = Double(remaining.seconds) + Double(remaining.attoseconds) / 1e18
            guard seconds > 0 else { throw .io("no answer in \((timeout * 100).rounded() / 100) s") }
            return seconds
        }
        let socket = try connect(endpoint, timeout: try left())
        defer { close(socket) }
        var head = "POST \(endpoint.path) HTTP/1.1\r\nHost: \(endpoint.host):\(endpoint.port)\r\n"
        head += "Content-Type: application/x-protobuf\r\nContent-Length: \(body.count)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        try write(Array(head.utf8) + body, to: socket, left: left)
        let reply = try readHead(socket, left: left)
        let parts = reply.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, let code = Int(parts[1]) else { throw .io("not an HTTP reply: \(reply.prefix(80))") }
        guard (200..<300).contains(code) else { throw .status(code, String(reply.prefix(120))) }
    }

    private static func connect(_ endpoint: CollectorEndpoint, timeout: Double) throws(Failure) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(endpoint.host, String(endpoint.port), &hints, &found)
        guard status == 0, let first = found else {
            throw .connect("\(endpoint.host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(first) }
        var why = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            entry = info.pointee.ai_next
            let fd = Glibc.socket(info.pointee.ai_family, info.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), 0)
            if fd < 0 { continue }
            if attempt(fd, info.pointee.ai_addr, info.pointee.ai_addrlen, timeout: timeout, why: &why) { return fd }
            close(fd)
        }
        throw .connect(why)
    }

    /// A connect that gives up after `timeout` (a collector that drops packets must not hold the exporter long),
    /// then send and receive timeouts on the socket.
    private static func attempt(
        _ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: socklen_t, timeout: Double,
        why: inout String
    ) -> Bool {
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        if Glibc.connect(fd, address, length) != 0 {
            guard errno == EINPROGRESS else {
                why = String(cString: strerror(errno))
                return false
            }
            var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            guard poll(&poller, 1, Int32(timeout * 1000)) == 1 else {
                why = "no answer in \((timeout * 100).rounded() / 100) s"
                return false
            }
            var error: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size)
            guard error == 0 else {
                why = String(cString: strerror(error))
                return false
            }
        }
        _ = fcntl(fd, F_SETFL, flags)
        return true
    }

    /// Send and receive time out after `seconds` (what is left of the request's deadline).
    private static func limit(_ fd: Int32, to seconds: Double) throws(Failure) {
        let seconds = max(seconds, 0.001)
        var limit = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }

    private static func write(
        _ bytes: [UInt8], to fd: Int32, left: () throws(Failure) -> Double
    ) throws(Failure) {
        var sent = 0
        while sent < bytes.count {
            try limit(fd, to: try left())
            // MSG_NOSIGNAL: a collector that hung up is an error here, not SIGPIPE for the whole process.
            let count = bytes.withUnsafeBytes { all in
                Glibc.send(fd, all.baseAddress.map { $0 + sent }, all.count - sent, Int32(MSG_NOSIGNAL))
            }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { continue }
                throw .io("sending: \(String(cString: strerror(errno)))")
            }
            sent += count
        }
    }

    /// Reads until the end of the status line (the rest of the reply is not needed).
    private static func readHead(_ fd: Int32, left: () throws(Failure) -> Double) throws(Failure) -> String {
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while !reply.contains(10), reply.count < 8192 {
            try limit(fd, to: try left())
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            // Timed out (the socket's limit is the deadline): `left` says so, or it was early and we go on.
            if count < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) { continue }
            guard count > 0 else {
                throw .io(count == 0 ? "the collector closed the connection" : String(cString: strerror(errno)))
            }
            reply += buffer[..<count]
        }
        let line = reply.prefix { $0 != 13 && $0 != 10 }
        return String(decoding: line, as: UTF8.self)
    }
}
