import CloudModel
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The real transport: HTTP/1.1 over plain TCP, keep-alive connections reused, each exchange on a thread of its own
/// (threads are kept for the next exchanges).
///
/// Written against POSIX sockets so a device process needs no HTTP library (on Linux, URLSession brings libcurl with
/// its TLS and authentication libraries into every process: about 9 MB of resident memory before the first request).
/// Speaks `http://` only, as the cloud does; an `https://` address is refused with a clear error.
public final class SocketTransport: HTTPTransport {
    private let idle = LockedValue<[String: [SocketConnection]]>([:])
    private let maximumIdlePerHost: Int

    /// A transport keeping up to `maximumIdlePerHost` idle connections per host for reuse.
    public init(maximumIdlePerHost: Int = 8) {
        self.maximumIdlePerHost = maximumIdlePerHost
    }

    deinit {
        idle.withLock { pools in
            for connection in pools.values.joined() { connection.close() }
            pools.removeAll()
        }
    }

    /// Sends the request and reads the whole response; network failures and timeouts throw `TransportError`.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let target = try RequestTarget(request)
        let head = Self.head(of: request, target: target)
        let deadline = ContinuousClock.now + .milliseconds(Int64(max(0, request.timeout) * 1000))
        let exchange = Exchange()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponse, any Error>) in
                let body = request.body
                let job: @Sendable () -> Void = { [self] in
                    continuation.resume(
                        with: Result(catching: { try self.perform(head, body: body, target: target, deadline: deadline, exchange) }))
                }
                ExchangeThreads.shared.run(job)
            }
        } onCancel: {
            exchange.cancel()
        }
    }

    /// Runs on the exchange's thread: a pooled connection (or a new one), the request, the response.
    private func perform(
        _ head: [UInt8], body: Data?, target: RequestTarget, deadline: ContinuousClock.Instant, _ exchange: Exchange
    ) throws -> HTTPResponse {
        var attempt = 0
        while true {
            attempt += 1
            let (connection, reused) = try checkOut(target, deadline: deadline, exchange)
            guard exchange.begin(connection) else {
                connection.close()
                throw CancellationError()
            }
            do {
                try connection.write(head, body, deadline: deadline)
                let (response, keepAlive) = try connection.readResponse(deadline: deadline, isHead: target.method == "HEAD")
                exchange.end()
                if keepAlive { checkIn(connection, target) } else { connection.close() }
                return response
            } catch let error as SocketConnection.Failure {
                exchange.end()
                connection.close()
                if exchange.isCancelled { throw CancellationError() }
                // A kept connection the cloud closed meanwhile fails before any answer: once more on a fresh one.
                if reused, attempt == 1, error.beforeAnyResponse { continue }
                throw TransportError("\(target.host) unreachable: \(error.reason)")
            }
        }
    }

    private func checkOut(_ target: RequestTarget, deadline: ContinuousClock.Instant, _ exchange: Exchange) throws -> (SocketConnection, Bool) {
        while let kept = idle.withLock({ $0[target.authority]?.popLast() }) {
            if kept.isStillOpen { return (kept, true) }
            kept.close()
        }
        do {
            let connection = try SocketConnection(host: target.host, port: target.port, deadline: deadline) { exchange.isCancelled }
            return (connection, false)
        } catch let error as SocketConnection.Failure {
            if exchange.isCancelled { throw CancellationError() }
            throw TransportError("\(target.authority) unreachable: \(error.reason)")
        }
    }

    private func checkIn(_ connection: SocketConnection, _ target: RequestTarget) {
        let kept = idle.withLock { pools -> Bool in
            guard pools[target.authority, default: []].count < maximumIdlePerHost else { return false }
            pools[target.authority, default: []].append(connection)
            return true
        }
        if !kept { connection.close() }
    }

    /// The request line and headers, with `Host` and `Content-Length`.
    static func head(of request: HTTPRequest, target: RequestTarget) -> [UInt8] {
        var text = "\(target.method) \(target.path) HTTP/1.1\r\nHost: \(target.authority)\r\n"
        for (name, value) in request.headers where !["host", "content-length", "connection"].contains(name.lowercased()) {
            text += "\(name): \(value)\r\n"
        }
        if let body = request.body {
            text += "Content-Length: \(body.count)\r\n"
        } else if target.method == "POST" || target.method == "PUT" {
            text += "Content-Length: 0\r\n"
        }
        text += "\r\n"
        return Array(text.utf8)
    }
}

/// The threads exchanges block on: kept a while after use, so a request wakes a sleeping thread (which the scheduler
/// runs at once) rather than starting a new one (which it queues behind whatever else runs on a busy machine).
final class ExchangeThreads: @unchecked Sendable {
    static let shared = ExchangeThreads()

    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    /// Threads waiting for a job, and how many of them were signalled and have not woken yet.
    private var idle = 0
    private var signalled = 0
    /// Seconds an idle thread waits for work before it ends.
    private let keepAlive: Double = 30

    /// Runs `job` on an idle thread, or on a new one when none is idle.
    func run(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        if idle > signalled {
            signalled += 1
            condition.signal()
            condition.unlock()
            return
        }
        condition.unlock()
        let thread = Thread { [self] in work() }
        thread.stackSize = 256 * 1024
        thread.start()
    }

    private func work() {
        condition.lock()
        while true {
            if !jobs.isEmpty {
                let job = jobs.removeFirst()
                condition.unlock()
                job()
                condition.lock()
                continue
            }
            idle += 1
            let woken = condition.wait(until: Date(timeIntervalSinceNow: keepAlive))
            idle -= 1
            if signalled > 0 { signalled -= 1 }
            if !woken && jobs.isEmpty {
                condition.unlock()
                return
            }
        }
    }
}

/// Where a request goes: method, host, port and the request target (path and query, as encoded in the URL).
struct RequestTarget: Sendable {
    var method: String
    var host: String
    var port: Int
    var path: String

    /// `host:port`, as the `Host` header and the connection pool name it (IPv6 addresses in brackets).
    var authority: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    init(_ request: HTTPRequest) throws {
        let url = request.url
        guard url.scheme?.lowercased() == "http" else {
            throw CloudError(.badRequest, "only http:// clouds are supported, not \(url.scheme ?? "a URL without a scheme")://")
        }
        guard let host = url.host, !host.isEmpty else { throw CloudError(.badRequest, "no host in \(url.absoluteString)") }
        method = request.method.uppercased()
        self.host = host
        port = url.port ?? 80
        // The request target exactly as the URL encodes it: everything from the first "/" (or "?") after the authority.
        let text = url.absoluteString
        let afterScheme = text.range(of: "://").map { text[$0.upperBound...] } ?? text[...]
        if let start = afterScheme.firstIndex(where: { $0 == "/" || $0 == "?" }) {
            let rest = afterScheme[start...]
            let withoutFragment = rest.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? rest
            path = withoutFragment.hasPrefix("?") ? "/" + withoutFragment : String(withoutFragment)
        } else {
            path = "/"
        }
    }
}

/// One exchange's link to its connection, so a cancelled task can unblock the thread reading for it.
final class Exchange: @unchecked Sendable {
    private let lock = NSLock()
    private var connection: SocketConnection?
    private var cancelled = false

    /// Whether the task was cancelled.
    var isCancelled: Bool { lock.withLock { cancelled } }

    /// Attaches the connection in use; false when already cancelled.
    func begin(_ connection: SocketConnection) -> Bool {
        lock.withLock {
            guard !cancelled else { return false }
            self.connection = connection
            return true
        }
    }

    /// Detaches the connection (done with it).
    func end() { lock.withLock { connection = nil } }

    /// Cancels: shuts the connection down so a blocked read or write returns at once.
    func cancel() {
        let current: SocketConnection? = lock.withLock {
            cancelled = true
            return connection
        }
        current?.shutDown()
    }
}

/// A blocking TCP connection with a read buffer; used by one exchange at a time.
final class SocketConnection: @unchecked Sendable {
    /// Why an exchange failed, and whether the peer had answered anything yet.
    struct Failure: Error {
        var reason: String
        var beforeAnyResponse = false
    }

    private let fd: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    /// Where `recv` writes, before the bytes join `buffer`.
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
    private let closed = LockedValue(false)

    /// Connects to `host:port` (any address it resolves to), giving up at `deadline` or when `isCancelled` says so.
    init(host: String, port: Int, deadline: ContinuousClock.Instant, isCancelled: () -> Bool) throws {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw Failure(reason: "cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let address = candidate {
            candidate = address.pointee.ai_next
            let socketFD = socket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
            guard socketFD >= 0 else {
                lastError = String(cString: strerror(errno))
                continue
            }
            do {
                try Self.connect(socketFD, address.pointee.ai_addr, address.pointee.ai_addrlen, deadline: deadline, isCancelled: isCancelled)
                var one: Int32 = 1
                setsockopt(socketFD, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                #if canImport(Darwin)
                setsockopt(socketFD, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
                #endif
                fd = socketFD
                return
            } catch let failure as Failure {
                systemClose(socketFD)
                lastError = failure.reason
            }
        }
        throw Failure(reason: lastError)
    }

    deinit {
        close()
        scratch.deallocate()
    }

    /// A non-blocking connect, waited for with `poll` until `deadline`, then back to blocking mode.
    private static func connect(
        _ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: socklen_t, deadline: ContinuousClock.Instant,
        isCancelled: () -> Bool
    ) throws {
        let flags = fcntl(fd, F_GETFL, 0)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        if systemConnect(fd, address, length) != 0 {
            guard errno == EINPROGRESS || errno == EINTR else { throw Failure(reason: String(cString: strerror(errno))) }
            // In slices, so a cancelled exchange does not wait for a host that never answers.
            while try !wait(fd, for: Int16(POLLOUT), until: min(deadline, .now + .milliseconds(100))) {
                guard ContinuousClock.now < deadline else { throw Failure(reason: "connection timed out") }
                guard !isCancelled() else { throw Failure(reason: "cancelled") }
            }
            var error: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size)
            guard error == 0 else { throw Failure(reason: String(cString: strerror(error))) }
        }
        _ = fcntl(fd, F_SETFL, flags)
    }

    /// Waits until `fd` is ready for `events` or `deadline` passes (false).
    private static func wait(_ fd: Int32, for events: Int16, until deadline: ContinuousClock.Instant) throws -> Bool {
        while true {
            let left = deadline - ContinuousClock.now
            let milliseconds = max(0, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&entry, 1, Int32(clamping: milliseconds))
            if ready > 0 { return true }
            if ready == 0 { return false }
            guard errno == EINTR else { throw Failure(reason: String(cString: strerror(errno))) }
        }
    }

    /// Whether a kept connection may be reused: nothing to read (a closed or chatty peer would be readable).
    var isStillOpen: Bool {
        guard start == buffer.count, !closed.withLock({ $0 }) else { return false }
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 0
    }

    /// Closes the socket (once).
    func close() {
        closed.withLock { closed in
            if !closed { systemClose(fd) }
            closed = true
        }
    }

    /// Makes a blocked read or write on another thread return at once (under the lock `close` takes, so a closed
    /// descriptor, perhaps reused by then, is never shut).
    func shutDown() {
        closed.withLock { closed in
            if !closed { systemShutdown(fd) }
        }
    }

    /// Writes the head and body, all of it, or throws.
    func write(_ head: [UInt8], _ body: Data?, deadline: ContinuousClock.Instant) throws {
        try head.withUnsafeBytes { try writeAll($0, deadline: deadline) }
        if let body, !body.isEmpty { try body.withUnsafeBytes { try writeAll($0, deadline: deadline) } }
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant) throws {
        var offset = 0
        while offset < bytes.count {
            let written = systemSend(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else if written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                guard try Self.wait(fd, for: Int16(POLLOUT), until: deadline) else { throw Failure(reason: "timed out sending") }
            } else {
                throw Failure(reason: "sending failed: \(String(cString: strerror(errno)))", beforeAnyResponse: true)
            }
        }
    }

    /// Reads more bytes into the buffer; false at the end of the stream.
    private func fill(deadline: ContinuousClock.Instant) throws -> Bool {
        if start > 0 && start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 64 * 1024 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        guard try Self.wait(fd, for: Int16(POLLIN), until: deadline) else { throw Failure(reason: "timed out waiting for the answer") }
        let count = recv(fd, scratch.baseAddress, scratch.count, 0)
        if count < 0 {
            if errno == EINTR || errno == EAGAIN { return true }
            throw Failure(reason: "reading failed: \(String(cString: strerror(errno)))")
        }
        buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[0..<count]))
        return count > 0
    }

    /// The next line (without CRLF), reading as needed.
    private func line(deadline: ContinuousClock.Instant, beforeAnyResponse: Bool = false) throws -> String {
        var scanned = start
        while true {
            let found: Int? = buffer.withUnsafeBytes { bytes in
                guard scanned < bytes.count, let hit = memchr(bytes.baseAddress! + scanned, 0x0A, bytes.count - scanned) else { return nil }
                return hit - UnsafeMutableRawPointer(mutating: bytes.baseAddress!)
            }
            if let end = found {
                var stop = end
                if stop > start, buffer[stop - 1] == 0x0D { stop -= 1 }
                let text = String(decoding: buffer[start..<stop], as: UTF8.self)
                start = end + 1
                return text
            }
            let seen = buffer.count - start  // `fill` may move the unread bytes to the front
            guard seen < 64 * 1024 else { throw Failure(reason: "answer header too long") }
            guard try fill(deadline: deadline) else {
                throw Failure(reason: "the cloud closed the connection", beforeAnyResponse: beforeAnyResponse && start == buffer.count)
            }
            scanned = start + seen
        }
    }

    /// Exactly `count` bytes of body, appended to `body`.
    private func read(_ count: Int, into body: inout Data, deadline: ContinuousClock.Instant) throws {
        var left = count
        while left > 0 {
            if start == buffer.count, try !fill(deadline: deadline) { throw Failure(reason: "the answer was cut short") }
            let take = min(left, buffer.count - start)
            buffer.withUnsafeBytes { body.append($0.baseAddress!.assumingMemoryBound(to: UInt8.self) + start, count: take) }
            start += take
            left -= take
        }
    }

    /// Reads one response (skipping interim 1xx ones); answers it and whether the connection may be reused.
    func readResponse(deadline: ContinuousClock.Instant, isHead: Bool) throws -> (HTTPResponse, Bool) {
        var first = true
        while true {
            let statusLine = try line(deadline: deadline, beforeAnyResponse: first)
            first = false
            let parts = statusLine.split(separator: " ", maxSplits: 2)
            guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
                throw Failure(reason: "not an HTTP answer: \(statusLine.prefix(60))")
            }
            var headers: [String: String] = [:]
            while true {
                let header = try line(deadline: deadline)
                if header.isEmpty { break }
                guard let colon = header.firstIndex(of: ":") else { continue }
                let name = header[..<colon].lowercased()
                let value = header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                headers[name] = headers[name].map { "\($0), \(value)" } ?? value
            }
            if (100..<200).contains(status) { continue }
            var keepAlive = parts[0] == "HTTP/1.1"
            if let connection = headers["connection"]?.lowercased() {
                if connection.contains("close") { keepAlive = false } else if connection.contains("keep-alive") { keepAlive = true }
            }
            var body = Data()
            if isHead || status == 204 || status == 304 {
                // No body.
            } else if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
                while true {
                    let sizeLine = try line(deadline: deadline)
                    let hex = sizeLine.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
                    guard let size = Int(hex.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else {
                        throw Failure(reason: "bad chunk size '\(sizeLine.prefix(20))'")
                    }
                    if size == 0 {
                        while try !line(deadline: deadline).isEmpty {}  // trailers
                        break
                    }
                    try read(size, into: &body, deadline: deadline)
                    guard try line(deadline: deadline).isEmpty else { throw Failure(reason: "bad chunk end") }
                }
            } else if let lengthText = headers["content-length"] {
                guard let length = Int(lengthText), length >= 0 else { throw Failure(reason: "bad Content-Length '\(lengthText)'") }
                body.reserveCapacity(length)
                try read(length, into: &body, deadline: deadline)
            } else {
                // Delimited by the end of the connection.
                keepAlive = false
                while true {
                    if start == buffer.count, try !fill(deadline: deadline) { break }
                    try read(buffer.count - start, into: &body, deadline: deadline)
                }
            }
            if start != buffer.count { keepAlive = false }  // bytes after the answer: do not trust this connection
            return (HTTPResponse(status: status, headers: headers, body: body), keepAlive)
        }
    }
}

// The system calls under names of their own (the connection's methods share some of their names).

private func systemClose(_ fd: Int32) { _ = close(fd) }

private func systemShutdown(_ fd: Int32) { _ = shutdown(fd, Int32(SHUT_RDWR)) }

private func systemConnect(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: socklen_t) -> Int32 {
    connect(fd, address, length)
}

/// `send` without SIGPIPE when the peer has gone (Darwin sockets get SO_NOSIGPIPE instead).
private func systemSend(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    send(fd, bytes, count, Int32(MSG_NOSIGNAL))
    #else
    send(fd, bytes, count, 0)
    #endif
}
