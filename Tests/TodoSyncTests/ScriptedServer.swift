import CloudClient
import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A raw TCP server on a loopback port that answers each request with what a test scripts, byte for byte: the
/// misbehaving cloud of the transport tests (lengths that lie, stalls, early closes, one byte at a time).
final class ScriptedServer: @unchecked Sendable {
    /// What to do with one request.
    enum Answer {
        /// Write these bytes (each piece after its delay, `byteByByte` one write per byte); then close when asked.
        case reply(String, thenClose: Bool = false, byteByByte: Bool = false)
        /// Write `bytes` then send nothing more, the connection left open until the test stops the server.
        case stallAfter(String)
        /// Close the connection without answering.
        case close
        /// Never answer (the connection stays open until the test ends).
        case silence
        /// Wait until `ready` holds (the test says when: an event, never a span of time), then answer.
        case when(_ ready: @Sendable () -> Bool, String)
    }

    let port: Int
    /// Whether the server listens on `::1` rather than `127.0.0.1`.
    let isIPv6: Bool
    private let listener: Int32
    private let lock = NSLock()
    private var connectionCount = 0
    private var heads: [String] = []
    private var open: [Int32] = []
    private let answer: @Sendable (_ head: String, _ body: [UInt8]) -> Answer

    /// Starts listening on a free loopback port (`::1` when `ipv6`).
    init(ipv6: Bool = false, _ answer: @escaping @Sendable (_ head: String, _ body: [UInt8]) -> Answer) throws {
        self.answer = answer
        isIPv6 = ipv6
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var bound = false
        var boundPort: UInt16 = 0
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_addr = in6addr_loopback
            var length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    bind(fd, pointer, length) == 0 && listen(fd, 64) == 0 && getsockname(fd, pointer, &length) == 0
                }
            }
            boundPort = address.sin6_port
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    bind(fd, pointer, length) == 0 && listen(fd, 64) == 0 && getsockname(fd, pointer, &length) == 0
                }
            }
            boundPort = address.sin_port
        }
        guard bound else {
            close(fd)
            throw TransportError("cannot listen")
        }
        listener = fd
        port = Int(UInt16(bigEndian: boundPort))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Connections accepted so far.
    var connections: Int { lock.withLock { connectionCount } }

    /// Request heads received so far.
    var requests: [String] { lock.withLock { heads } }

    /// The base URL of the server.
    var url: URL { URL(string: isIPv6 ? "http://[::1]:\(port)" : "http://127.0.0.1:\(port)")! }

    /// Stops accepting and shuts every open connection (under the lock, so no descriptor is shut after reuse).
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))  // the accept loop closes it, so no other test's socket gets its number meanwhile
        lock.withLock {
            for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    private func closeConnection(_ fd: Int32) {
        lock.withLock {
            open.removeAll { $0 == fd }
            close(fd)
        }
    }

    private func acceptLoop() {
        while true {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else {
                close(listener)
                return
            }
            lock.withLock {
                connectionCount += 1
                open.append(fd)
            }
            Thread.detachNewThread { [self] in serve(fd) }
        }
    }

    private func serve(_ fd: Int32) {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            // One request: the head up to the blank line, then Content-Length bytes of body.
            var headEnd: Int?
            while headEnd == nil {
                if let end = Self.find([13, 10, 13, 10], in: buffer) {
                    headEnd = end
                    break
                }
                let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard count > 0 else {
                    closeConnection(fd)
                    return
                }
                buffer += chunk[0..<count]
            }
            let head = String(decoding: buffer[0..<headEnd!], as: UTF8.self)
            buffer.removeFirst(headEnd! + 4)
            var length = 0
            for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
                length = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
            }
            while buffer.count < length {
                let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard count > 0 else {
                    closeConnection(fd)
                    return
                }
                buffer += chunk[0..<count]
            }
            let body = Array(buffer[0..<length])
            buffer.removeFirst(length)
            lock.withLock { heads.append(head) }
            switch answer(head, body) {
            case .reply(let text, let thenClose, let byteByByte):
                let bytes = Array(text.utf8)
                if byteByByte {
                    var one: Int32 = 1
                    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                    for byte in bytes {
                        guard write(fd, [byte]) else { break }
                        // A segment of its own: the next byte goes once the peer has acknowledged this one.
                        _ = eventuallyBlocking {
                            var unacknowledged: Int32 = 0
                            return ioctl(fd, UInt(TIOCOUTQ), &unacknowledged) != 0 || unacknowledged == 0
                        }
                    }
                } else {
                    _ = write(fd, bytes)
                }
                if thenClose {
                    closeConnection(fd)
                    return
                }
            case .when(let ready, let text):
                _ = eventuallyBlocking(30, ready)
                _ = write(fd, Array(text.utf8))
            case .stallAfter(let text):
                _ = write(fd, Array(text.utf8))
                return  // left open; `stop` shuts it
            case .close:
                closeConnection(fd)
                return
            case .silence:
                return  // left open; `stop` shuts it
            }
        }
    }

    private func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for index in 0...(haystack.count - needle.count) where haystack[index..<index + needle.count].elementsEqual(needle) {
            return index
        }
        return nil
    }
}
