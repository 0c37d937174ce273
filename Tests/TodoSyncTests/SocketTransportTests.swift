import CloudClient
import CloudModel
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

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
