import CloudClient
import CloudModel
import Foundation
import TestSupport
import Testing

/// A transport the device ships, made fresh for a test.
struct ShippedTransport: Sendable, CustomStringConvertible {
    var description: String
    var make: @Sendable (_ maximumResponseBytes: Int) -> any HTTPTransport

    /// Every transport `CloudTransport.make` may hand out.
    static let all: [ShippedTransport] = [
        ShippedTransport(description: "HTTPClientTransport") { HTTPClientTransport(maximumResponseBytes: $0) }
    ]
}

/// The rules every transport keeps against a cloud that misbehaves, checked with a scripted raw TCP server.
@Suite("Transport conformance: an untrusted cloud")
struct TransportConformanceTests {
    /// A GET; its deadline is far unless a test is about deadlines (the whole suite's load can hold a test for seconds).
    func get(_ server: ScriptedServer, _ path: String = "/x", timeout: Double = 60) -> HTTPRequest {
        HTTPRequest(method: "GET", url: server.url.appendingPathComponent(path), timeout: timeout)
    }

    /// A POST of `{}`; its deadline as `get`'s.
    func post(_ server: ScriptedServer, _ path: String = "/x", timeout: Double = 60) -> HTTPRequest {
        HTTPRequest(method: "POST", url: server.url.appendingPathComponent(path), body: Data("{}".utf8), timeout: timeout)
    }

    /// Sends and expects a `TransportError`; answers its words.
    func failure(_ transport: any HTTPTransport, _ request: HTTPRequest) async -> String {
        do {
            let response = try await transport.send(request)
            Issue.record("expected a TransportError, got status \(response.status) with \(response.body.count) bytes")
            return ""
        } catch let error as TransportError {
            return error.reason
        } catch {
            Issue.record("expected a TransportError, got \(error)")
            return ""
        }
    }

    // MARK: Well-formed answers

    @Test(arguments: ShippedTransport.all) func interimAndChunkedAnswersAreRead(_ shipped: ShippedTransport) async throws {
        let server = try ScriptedServer { _, _ in
            .reply(
                "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Thing: A\r\nX-Thing: B\r\n\r\n"
                    + "5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nTrailer: t\r\n\r\n")
        }
        defer { server.stop() }
        let response = try await shipped.make(1 << 20).send(get(server))
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "hello world")
        #expect(response.headers["x-thing"] == "A, B")
    }

    @Test(arguments: ShippedTransport.all) func keptConnectionsAreReusedAndTheRequestIsWhole(_ shipped: ShippedTransport) async throws {
        let server = try ScriptedServer { head, body in
            let text = "\(head.split(separator: "\r\n").first ?? "") \(body.count)"
            return .reply("HTTP/1.1 201 Created\r\nContent-Length: \(text.utf8.count)\r\n\r\n\(text)")
        }
        defer { server.stop() }
        let transport = shipped.make(1 << 20)
        var request = HTTPRequest(
            method: "POST", url: URL(string: "http://127.0.0.1:\(server.port)/a/b%20c?d=1&e=%2F")!,
            headers: ["Authorization": "Bearer t"], body: Data(repeating: 0x61, count: 300_000))
        let first = try await transport.send(request)
        #expect(first.status == 201)
        #expect(String(decoding: first.body, as: UTF8.self) == "POST /a/b%20c?d=1&e=%2F HTTP/1.1 300000")
        request.body = Data("{}".utf8)
        // A connection goes back to the pool on the client's event loop just after its answer is handed over, so a
        // request sent at once may find it still busy and open another: reuse is shown over several requests.
        for _ in 0..<4 {
            let next = try await transport.send(request)
            #expect(String(decoding: next.body, as: UTF8.self).hasSuffix(" 2"))
        }
        #expect(server.connections < 5, "5 requests in a row, each on a connection of its own")
        let head = try #require(server.requests.first)
        #expect(head.contains("\r\nhost: 127.0.0.1:\(server.port)") || head.contains("\r\nHost: 127.0.0.1:\(server.port)"))
        #expect(head.contains("Authorization: Bearer t"))
    }

    @Test(arguments: ShippedTransport.all) func answersEndedByClosingAreRead(_ shipped: ShippedTransport) async throws {
        let server = try ScriptedServer { _, _ in .reply("HTTP/1.1 200 OK\r\n\r\nuntil the end", thenClose: true) }
        defer { server.stop() }
        let response = try await shipped.make(1 << 20).send(get(server))
        #expect(String(decoding: response.body, as: UTF8.self) == "until the end")
    }

    @Test(arguments: ShippedTransport.all) func anAnswerArrivingOneByteAtATimeIsWhole(_ shipped: ShippedTransport) async throws {
        let server = try ScriptedServer { _, _ in
            .reply("HTTP/1.1 200 OK\r\nContent-Length: 11\r\nX-A: b\r\n\r\nhello world", byteByByte: true)
        }
        defer { server.stop() }
        let response = try await shipped.make(1 << 20).send(get(server))
        #expect(String(decoding: response.body, as: UTF8.self) == "hello world")
        #expect(response.headers["x-a"] == "b")
    }

    @Test(arguments: ShippedTransport.all) func anIPv6LiteralURLWorks(_ shipped: ShippedTransport) async throws {
        guard let server = try? ScriptedServer(ipv6: true, { _, _ in .reply("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nv6") }) else {
            print("skipped: no IPv6 loopback here")
            return
        }
        defer { server.stop() }
        #expect(server.url.absoluteString.hasPrefix("http://[::1]:"))
        let response = try await shipped.make(1 << 20).send(get(server))
        #expect(String(decoding: response.body, as: UTF8.self) == "v6")
        #expect(server.requests.first?.lowercased().contains("host: [::1]:\(server.port)") == true)
    }

    // MARK: Lengths and sizes

    @Test(arguments: ShippedTransport.all) func aContentLengthOverTheCapFailsBeforeTheBodyComes(_ shipped: ShippedTransport) async throws {
        // Claims a terabyte, sends a few bytes and waits: a transport reserving or waiting for it would end in a timeout.
        let server = try ScriptedServer { _, _ in .stallAfter("HTTP/1.1 200 OK\r\nContent-Length: 1000000000000\r\n\r\nabc") }
        defer { server.stop() }
        // The stall outlasts any deadline: only the cap can end it with these words.
        let words = await failure(shipped.make(1 << 20), get(server, timeout: 60))
        #expect(words.contains("larger than"), "\(words)")
    }

    @Test(arguments: ShippedTransport.all) func aChunkOverTheCapFailsWithoutWaitingForTheRest(_ shipped: ShippedTransport) async throws {
        let server = try ScriptedServer { _, _ in
            .stallAfter("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n200000\r\n" + String(repeating: "x", count: 1_100_000))
        }
        defer { server.stop() }
        // The stall outlasts any deadline: only the cap can end it with these words.
        let words = await failure(shipped.make(1 << 20), get(server, timeout: 60))
        #expect(words.contains("larger than"), "\(words)")
    }

    @Test(arguments: ShippedTransport.all) func aBodyUnderTheCapIsRead(_ shipped: ShippedTransport) async throws {
        let body = String(repeating: "y", count: 1 << 20)
        let server = try ScriptedServer { _, _ in .reply("HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)") }
        defer { server.stop() }
        let response = try await shipped.make(1 << 20).send(get(server))
        #expect(response.body.count == 1 << 20)
    }

    @Test(
        arguments: ShippedTransport.all,
        [
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
            "HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\nhello",
            "HTTP/1.1 200 OK\r\nContent-Length: 5x\r\n\r\nhello",
            "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999\r\n\r\nhello",
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFFFFFFFF\r\nhello\r\n0\r\n\r\n",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n0\r\n\r\n",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX0\r\n\r\n",
            "HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n",
            "NOT HTTP AT ALL\r\n\r\n",
            "HTTP/1.1 200 OK\r\nBad Header Without Colon\r\nContent-Length: 0\r\n\r\n",
        ])
    func malformedLengthsAndHeadsAreErrors(_ shipped: ShippedTransport, _ answer: String) async throws {
        let server = try ScriptedServer { _, _ in .reply(answer, thenClose: true) }
        defer { server.stop() }
        _ = await failure(shipped.make(1 << 20), get(server, timeout: 5))
    }

    @Test(arguments: ShippedTransport.all) func aConnectionClosedMidBodyIsAnError(_ shipped: ShippedTransport) async throws {
        let server = try ScriptedServer { _, _ in .reply("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", thenClose: true) }
        defer { server.stop() }
        _ = await failure(shipped.make(1 << 20), get(server, timeout: 5))
    }

    @Test(arguments: ShippedTransport.all) func aChunkedAnswerCutShortIsAnError(_ shipped: ShippedTransport) async throws {
        let server = try ScriptedServer { _, _ in .reply("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel", thenClose: true) }
        defer { server.stop() }
        _ = await failure(shipped.make(1 << 20), get(server, timeout: 5))
    }

    @Test(arguments: ShippedTransport.all) func aHeaderOf64KiBIsRefused(_ shipped: ShippedTransport) async throws {
        let big = String(repeating: "a", count: 64 * 1024)
        let server = try ScriptedServer { _, _ in .reply("HTTP/1.1 200 OK\r\nX-Big: \(big)\r\nContent-Length: 2\r\n\r\nok") }
        defer { server.stop() }
        _ = await failure(shipped.make(1 << 20), get(server, timeout: 5))
    }

    @Test(arguments: ShippedTransport.all) func thousandsOfHeadersAreRefused(_ shipped: ShippedTransport) async throws {
        let many = (0..<3000).map { "X-\($0): 1\r\n" }.joined()
        let server = try ScriptedServer { _, _ in .reply("HTTP/1.1 200 OK\r\n\(many)Content-Length: 2\r\n\r\nok") }
        defer { server.stop() }
        // A far deadline: only the refusal of the headers can end it with these words, however slowly they come.
        let words = await failure(shipped.make(1 << 20), get(server, timeout: 60))
        #expect(words.contains("header"), "\(words)")
    }

    // MARK: Deadlines

    @Test(arguments: ShippedTransport.all) func aStallMidHeaderEndsAtTheDeadline(_ shipped: ShippedTransport) async throws {
        let server = try ScriptedServer { _, _ in .stallAfter("HTTP/1.1 200 OK\r\nContent-Le") }
        defer { server.stop() }
        let words = await failure(shipped.make(1 << 20), get(server, timeout: 0.5))
        #expect(words.contains("timed out"), "\(words)")
    }

    @Test(arguments: ShippedTransport.all) func aStallMidBodyEndsAtTheDeadline(_ shipped: ShippedTransport) async throws {
        let server = try ScriptedServer { _, _ in .stallAfter("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc") }
        defer { server.stop() }
        let words = await failure(shipped.make(1 << 20), get(server, timeout: 0.5))
        #expect(words.contains("timed out"), "\(words)")
    }

    @Test(arguments: ShippedTransport.all) func aSilentCloudTimesOut(_ shipped: ShippedTransport) async throws {
        let server = try ScriptedServer { _, _ in .silence }
        defer { server.stop() }
        // The server never answers: only the request's own deadline can end it, in these words.
        let words = await failure(shipped.make(1 << 20), post(server, timeout: 0.3))
        #expect(words.contains("timed out"), "\(words)")
    }

    @Test(arguments: ShippedTransport.all) func anAddressThatNeverAnswersTimesOutConnecting(_ shipped: ShippedTransport) async throws {
        // 192.0.2.0/24 is reserved for documentation: nothing answers there (or the network says it is unreachable).
        let words = await failure(shipped.make(1 << 20), HTTPRequest(method: "GET", url: URL(string: "http://192.0.2.1:9/x")!, timeout: 0.5))
        #expect(words.contains("timed out") || words.contains("unreachable"), "\(words)")
    }

    @Test(arguments: ShippedTransport.all) func nobodyListeningIsATransportError(_ shipped: ShippedTransport) async throws {
        let server = try ScriptedServer { _, _ in .silence }
        let url = server.url
        server.stop()
        // A deadline far off: a refused connection must fail as unreachable at once, not time out.
        let words = await failure(shipped.make(1 << 20), HTTPRequest(method: "GET", url: url.appendingPathComponent("health"), timeout: 60))
        #expect(words.contains("unreachable"), "\(words)")
    }

    // MARK: What is sent

    @Test(arguments: ShippedTransport.all, ["a\r\nInjected: 1", "a\nb", "a\rb", "nul\u{0}", "bell\u{7}", "del\u{7F}"])
    func controlBytesInAHeaderValueAreRefusedBeforeSending(_ shipped: ShippedTransport, _ value: String) async throws {
        let server = try ScriptedServer { _, _ in .reply("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n") }
        defer { server.stop() }
        var request = get(server)
        request.headers["X-Evil"] = value
        let transport = shipped.make(1 << 20)
        let words = await failure(transport, request)
        #expect(words.contains("control character"), "\(words)")
        // A good request after it is the first the server sees.
        _ = try await transport.send(get(server, "/after"))
        #expect(server.requests.map { $0.hasPrefix("GET /after") } == [true])
    }

    @Test(arguments: ShippedTransport.all, ["X-Evil\r\nInjected", "X Space", "", "X:Colon"])
    func badHeaderNamesAreRefusedBeforeSending(_ shipped: ShippedTransport, _ name: String) async throws {
        let server = try ScriptedServer { _, _ in .reply("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n") }
        defer { server.stop() }
        var request = get(server)
        request.headers[name] = "v"
        let transport = shipped.make(1 << 20)
        _ = await failure(transport, request)
        _ = try await transport.send(get(server, "/after"))
        #expect(server.requests.map { $0.hasPrefix("GET /after") } == [true])
    }

    // MARK: Kept connections, retries, cancellation

    @Test(arguments: ShippedTransport.all) func aPostOnAKeptConnectionTheCloudClosedIsNotSentAgain(_ shipped: ShippedTransport) async throws {
        let count = LockedValue(0)
        // The first request is answered and the connection kept; the cloud closes the second's connection unanswered.
        let server = try ScriptedServer { _, _ in
            let index = count.withLock { count -> Int in
                count += 1
                return count
            }
            return index == 2 ? .close : .reply("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        }
        defer { server.stop() }
        let transport = shipped.make(1 << 20)
        _ = try await transport.send(post(server))
        _ = await failure(transport, post(server))
        // A request after the failure is the third the server sees: the POST was not sent again before or after it.
        _ = try await transport.send(get(server, "/after"))
        #expect(server.requests.count == 3, "the POST was sent again: \(server.requests)")
        #expect(server.requests.last?.hasPrefix("GET /after") == true)
    }

    @Test(arguments: ShippedTransport.all) func aGetOnAKeptConnectionTheCloudClosedIsSentOnceMore(_ shipped: ShippedTransport) async throws {
        let count = LockedValue(0)
        let server = try ScriptedServer { _, _ in
            let index = count.withLock { count -> Int in
                count += 1
                return count
            }
            return index == 2 ? .close : .reply("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        }
        defer { server.stop() }
        let transport = shipped.make(1 << 20)
        _ = try await transport.send(get(server))
        let again = try await transport.send(get(server))
        #expect(String(decoding: again.body, as: UTF8.self) == "ok")
        #expect(server.requests.count == 3)
        // 2 when the second request went on the kept connection; 3 when it found that connection not yet back in the
        // pool (see keptConnectionsAreReused…) and opened one the server closed just the same.
        #expect((2...3).contains(server.connections))
    }

    @Test(arguments: ShippedTransport.all) func aGetClosedTwiceIsNotRetriedForever(_ shipped: ShippedTransport) async throws {
        let server = try ScriptedServer { head, _ in
            head.hasPrefix("GET /after") ? .reply("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok") : .close
        }
        defer { server.stop() }
        let transport = shipped.make(1 << 20)
        _ = await failure(transport, get(server))
        _ = try await transport.send(get(server, "/after"))
        #expect(server.requests.count <= 3 && server.requests.last?.hasPrefix("GET /after") == true, "\(server.requests)")
    }

    @Test(arguments: ShippedTransport.all) func cancellingARequestEndsItAtOnce(_ shipped: ShippedTransport) async throws {
        let server = try ScriptedServer { _, _ in .silence }
        defer { server.stop() }
        let transport = shipped.make(1 << 20)
        let request = get(server, timeout: 60)
        let task = Task { try await transport.send(request) }
        #expect(await eventually { server.requests.count == 1 }, "the request reached the server")
        // Its deadline is a minute off: only the cancellation can end it with CancellationError.
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test(arguments: ShippedTransport.all) func cancellingOneRequestLeavesAnotherOnTheSamePoolAlone(_ shipped: ShippedTransport) async throws {
        // /slow is answered only once the stalled request's cancellation ended it: it is in flight all along.
        let cancelled = LockedValue(false)
        let server = try ScriptedServer { head, _ in
            let answer = "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nslow"
            if head.hasPrefix("GET /stall") { return .silence }
            return head.hasPrefix("GET /slow") ? .when({ cancelled.withLock { $0 } }, answer) : .reply(answer)
        }
        defer { server.stop() }
        let transport = shipped.make(1 << 20)
        // Warm the pool so both requests start from the same kept connections.
        _ = try await transport.send(get(server, "/warm"))
        let slow = Task { try await transport.send(get(server, "/slow")) }
        let stalled = Task { try await transport.send(get(server, "/stall", timeout: 60)) }
        #expect(await eventually { server.requests.contains { $0.hasPrefix("GET /stall") } })
        #expect(await eventually { server.requests.contains { $0.hasPrefix("GET /slow") } })
        stalled.cancel()
        await #expect(throws: CancellationError.self) { try await stalled.value }
        cancelled.withLock { $0 = true }
        let answer = try await slow.value
        #expect(String(decoding: answer.body, as: UTF8.self) == "slow")
        let after = try await transport.send(get(server, "/after"))
        #expect(String(decoding: after.body, as: UTF8.self) == "slow")
    }
}
