import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A raw TCP client for the connection tests: connects over IPv4 or IPv6, sends bytes as slowly as it likes, and
/// notices when the cloud closes on it. Non-blocking, polled with short sleeps, so a waiting test never holds one of
/// the cooperative threads the cloud in the same process answers on.
final class RawClient: @unchecked Sendable {
    private let descriptor: Int32
    /// The socket's inode when it connected: should the number ever name another file, something else in the
    /// process closed this socket (a close of a number its owner had already closed).
    private let inode: UInt
    private var received: [UInt8] = []
    private(set) var isClosed = false

    /// `init` on a thread of its own, for a cloud whose backlog may be full: a connect then blocks until the SYN is
    /// sent again (a second or more), which on a cooperative thread would stall every other test in the process.
    static func connecting(host: String = "127.0.0.1", port: Int) async throws -> RawClient {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try RawClient(host: host, port: port) }) }
        }
    }

    /// Connects to `host` (an IPv4 or IPv6 literal) on `port`, from the IPv4 address `source` when given (any of
    /// 127.0.0.0/8 is this machine on Linux: one process can be many peers).
    init(host: String = "127.0.0.1", port: Int, from source: String? = nil) throws {
        // Opened before `self` is whole: a class whose initializer throws once every property is set is deinitialized,
        // and a `deinit` closing a descriptor the failed connect already closed would close whatever another thread
        // had opened under that number meanwhile (an event loop's, a database connection's).
        descriptor = try Self.connected(host: host, port: port, from: source)
        inode = Self.inode(of: descriptor)
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }

    /// Whether the descriptor still names the socket this client opened (see `inode`); a test's failure message
    /// says so when it does not.
    var ownsItsSocket: Bool { Self.inode(of: descriptor) == inode }

    private static func inode(of descriptor: Int32) -> UInt {
        var status = stat()
        return fstat(descriptor, &status) == 0 ? UInt(status.st_ino) : 0
    }

    /// A socket connected to `host` on `port` (from `source`), or closed and thrown.
    private static func connected(host: String, port: Int, from source: String?) throws -> Int32 {
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        let isV6 = host.contains(":")
        let descriptor = socket(isV6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw RawClientError("socket: \(String(cString: strerror(errno)))") }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            inet_pton(AF_INET, source, &local.sin_addr)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                throw RawClientError("bind to \(source): \(reason)")
            }
        }
        let result: Int32
        if isV6 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET6, host, &v6.sin6_addr)
            result = withUnsafePointer(to: &v6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, host, &v4.sin_addr)
            result = withUnsafePointer(to: &v4) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw RawClientError("connect to \(host):\(port): \(reason)")
        }
        return descriptor
    }

    deinit { close(descriptor) }

    /// Sends `text`; false when the cloud has closed the connection.
    @discardableResult
    func send(_ text: String) async -> Bool { await send(Array(text.utf8)) }

    /// Sends `bytes`, waiting (never blocking) while the socket's buffer is full; false when the cloud has closed
    /// the connection (or read nothing for 30 s).
    @discardableResult
    func send(_ bytes: [UInt8]) async -> Bool {
        var offset = 0
        while offset < bytes.count {
            // A full buffer is waited out until the cloud has read some of it (nil while the send would block).
            let written = await firstValue(within: 30) { () -> Int? in
                let written = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                return written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? nil : written
            }
            guard let written, written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// Reads what has arrived without waiting; notes a close.
    func drain() {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while !isClosed {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count > 0 {
                received += chunk[0..<count]
            } else if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) {
                isClosed = true
            } else {
                return
            }
        }
    }

    /// Waits up to `limit` for the cloud to close the connection; whether it did.
    func waitForClose(within limit: Duration) async -> Bool {
        // firstValue looks once more at the end: a test process too busy to look meanwhile still sees the close.
        await firstValue(within: limit) { () -> Bool? in
            drain()
            return isClosed ? true : nil
        } ?? false
    }

    /// Waits up to `limit` for one whole response (head, and a body of its `Content-Length`); returns its status
    /// line's code and body, or nil when none came.
    func response(within limit: Duration) async -> (status: Int, body: String)? {
        enum Outcome { case answer(status: Int, body: String), closed }
        let outcome = await firstValue(within: limit) { () -> Outcome? in
            drain()
            if let answer = takeResponse() { return .answer(status: answer.status, body: answer.body) }
            return isClosed ? .closed : nil
        }
        guard case .answer(let status, let body)? = outcome else { return nil }
        return (status, body)
    }

    /// Everything received so far as text.
    var receivedText: String { String(decoding: received, as: UTF8.self) }

    private func takeResponse() -> (status: Int, body: String)? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard received.count >= 4, let end = (0...(received.count - 4)).first(where: { Array(received[$0..<$0 + 4]) == separator })
        else { return nil }
        let head = String(decoding: received[0..<end], as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        let length = lines.dropFirst().first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
        guard received.count >= end + 4 + length else { return nil }
        let body = String(decoding: received[(end + 4)..<(end + 4 + length)], as: UTF8.self)
        received.removeFirst(end + 4 + length)
        return (status, body)
    }
}

/// A raw client could not connect.
struct RawClientError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
