import CloudClient
import CloudModel
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A loopback server that answers each request with what a test scripts, for the transport's edge cases.
final class ScriptedServer: @unchecked Sendable {
    /// What to do with one request.
    enum Answer {
        /// Write these bytes; then close the connection when asked.
        case reply(String, thenClose: Bool = false)
        /// Never answer (the connection stays open until the test ends).
        case silence
    }

    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var connectionCount = 0
    private var heads: [String] = []
    private var open: [Int32] = []
    private let answer: @Sendable (_ head: String, _ body: [UInt8]) -> Answer

    /// Starts listening on a free loopback port.
    init(_ answer: @escaping @Sendable (_ head: String, _ body: [UInt8]) -> Answer) throws {
        self.answer = answer
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw TransportError("cannot listen") }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Connections accepted so far.
    var connections: Int { lock.withLock { connectionCount } }

    /// Request heads received so far.
    var requests: [String] { lock.withLock { heads } }

    /// The base URL of the server.
    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

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
            case .reply(let text, let thenClose):
                let bytes = Array(text.utf8)
                var offset = 0
                while offset < bytes.count {
                    let written = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    guard written > 0 else { break }
                    offset += written
                }
                if thenClose {
                    closeConnection(fd)
                    return
                }
            case .silence:
                return  // left open; `stop` shuts it
            }
        }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for index in 0...(haystack.count - needle.count) where haystack[index..<index + needle.count].elementsEqual(needle) {
            return index
        }
        return nil
    }
}

@Suite("SocketTransport: HTTP/1.1 over plain sockets") struct SocketTransportTests {
    func get(_ server: ScriptedServer, _ path: String = "/x", timeout: Double = 10) -> HTTPRequest {
        HTTPRequest(method: "GET", url: server.url.appendingPathComponent(path), timeout: timeout)
    }

    @Test func interimAndChunkedAnswersAreRead() async throws {
        let server = try ScriptedServer { _, _ in
            .reply(
                "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Thing: A\r\n\r\n"
                    + "5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nTrailer: t\r\n\r\n")
        }
        defer { server.stop() }
        let response = try await SocketTransport().send(get(server))
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "hello world")
        #expect(response.headers["x-thing"] == "A")
    }

    @Test func keptConnectionsAreReusedAndTheRequestIsWhole() async throws {
        let server = try ScriptedServer { head, body in
            let text = "\(head.split(separator: "\r\n").first ?? "") \(body.count)"
            return .reply("HTTP/1.1 201 Created\r\nContent-Length: \(text.utf8.count)\r\n\r\n\(text)")
        }
        defer { server.stop() }
        let transport = SocketTransport()
        let body = Data(repeating: 0x61, count: 300_000)
        var request = HTTPRequest(
            method: "POST", url: URL(string: "http://127.0.0.1:\(server.port)/a/b%20c?d=1&e=%2F")!,
            headers: ["Authorization": "Bearer t"], body: body)
        let first = try await transport.send(request)
        #expect(first.status == 201)
        #expect(String(decoding: first.body, as: UTF8.self) == "POST /a/b%20c?d=1&e=%2F HTTP/1.1 300000")
        request.body = Data("{}".utf8)
        let second = try await transport.send(request)
        #expect(String(decoding: second.body, as: UTF8.self).hasSuffix(" 2"))
        #expect(server.connections == 1)
        let head = try #require(server.requests.first)
        #expect(head.contains("Host: 127.0.0.1:\(server.port)\r\n"))
        #expect(head.contains("Authorization: Bearer t\r\n"))
    }

    @Test func answersEndedByClosingAndClosedKeptConnectionsStartAFreshOne() async throws {
        let server = try ScriptedServer { head, _ in
            if head.hasPrefix("GET /close") { return .reply("HTTP/1.1 200 OK\r\n\r\nuntil the end", thenClose: true) }
            // Answers, then closes without saying so (as an idle timeout would, later).
            return .reply("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", thenClose: true)
        }
        defer { server.stop() }
        let transport = SocketTransport()
        let ended = try await transport.send(get(server, "/close"))
        #expect(String(decoding: ended.body, as: UTF8.self) == "until the end")
        _ = try await transport.send(get(server, "/kept"))
        try await Task.sleep(nanoseconds: 50_000_000)  // the close reaches this side
        let again = try await transport.send(get(server, "/kept"))
        #expect(String(decoding: again.body, as: UTF8.self) == "ok")
        #expect(server.connections == 3)
    }

    @Test func aSilentCloudTimesOutAsATransportError() async throws {
        let server = try ScriptedServer { _, _ in .silence }
        defer { server.stop() }
        let start = ContinuousClock.now
        await #expect(throws: TransportError.self) { try await SocketTransport().send(get(server, timeout: 0.3)) }
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test func cancellingAWaitingRequestEndsItAtOnce() async throws {
        let server = try ScriptedServer { _, _ in .silence }
        defer { server.stop() }
        let transport = SocketTransport()
        let request = get(server, timeout: 60)
        let task = Task { try await transport.send(request) }
        try await Task.sleep(nanoseconds: 100_000_000)
        let start = ContinuousClock.now
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(ContinuousClock.now - start < .seconds(2))
    }

    @Test func nobodyListeningIsATransportError() async throws {
        let server = try ScriptedServer { _, _ in .silence }
        let url = server.url
        server.stop()
        await #expect(throws: TransportError.self) {
            try await SocketTransport().send(HTTPRequest(method: "GET", url: url.appendingPathComponent("health"), timeout: 2))
        }
    }

    @Test func httpsIsRefusedInWords() async throws {
        let error = await #expect(throws: CloudError.self) {
            try await SocketTransport().send(HTTPRequest(method: "GET", url: URL(string: "https://example.com/health")!))
        }
        #expect(error?.reason.contains("http://") == true)
    }
}
