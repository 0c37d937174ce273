import CloudModel
import CloudServer
import Foundation
import TLSTestSupport
import TestSupport
import Testing

/// Idle, slow and greedy clients on raw sockets against a real cloud: the request deadline, the per-address cap,
/// header and body limits, and long-polls that must outlive the deadline.
/// Its clouds accept at once (`deferAccept = 0`): the tests hold silent connections, which the deferred accept would
/// keep in the kernel, out of the cloud's reach.
@Suite("Connections")
struct ConnectionLimitTests {
    static let health = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

    @Test func aSilentConnectionIsClosedAfterTheIdleTimeout() async throws {
        try await withCloud(configure: { $0.deferAccept = 0; $0.idleTimeout = 3 }) { cloud in
            let connected = ContinuousClock.now
            let client = try RawClient(port: cloud.server.port)
            // A silent connection holds nothing up: a request on a connection opened after it is answered.
            let other = try RawClient(port: cloud.server.port)
            await other.send(Self.health)
            #expect(await other.response(within: .seconds(30))?.status == 200)
            // The idle timeout closes it, and not before the timeout has passed since it connected: the cloud's clock
            // starts at the accept, which is later, and a loaded machine can only make the close later still.
            #expect(await client.waitForClose(within: .seconds(20)))
            let lived = ContinuousClock.now - connected
            #expect(lived >= .seconds(3), "closed \(lived) after connecting, before the 3 s idle timeout")
        }
    }

    @Test func aHeadTrickledByteByByteIsCutAtTheDeadlineOfTheWholeHead() async throws {
        try await withCloud(configure: { $0.deferAccept = 0; $0.idleTimeout = 2 }) { cloud in
            let client = try RawClient(port: cloud.server.port)
            await client.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            // A slow-loris client: a header byte whenever 100 ms pass without the close, never the blank line that
            // ends the head.
            var closed = false
            for _ in 0..<150 where !closed {
                closed = await client.waitForClose(within: .milliseconds(100))
                if !closed { await client.send("X") }
            }
            // A deadline per read would never fire here: only one for the whole head closes it.
            #expect(closed, "a trickling head kept the connection open for 15 s")
        }
    }

    @Test func aKeptAliveConnectionIsClosedWhenIdleAfterItsAnswer() async throws {
        try await withCloud(configure: { $0.deferAccept = 0; $0.idleTimeout = 2 }) { cloud in
            let client = try RawClient(port: cloud.server.port)
            await client.send(Self.health)
            #expect(await client.response(within: .seconds(30))?.status == 200)
            // A second request is served on the same connection.
            await client.send(Self.health)
            #expect(await client.response(within: .seconds(30))?.status == 200)
            #expect(await client.waitForClose(within: .seconds(20)))
        }
    }

    @Test func aLongPollOutlivesTheIdleTimeout() async throws {
        // 3 s: the set-up's own requests reuse keep-alive connections the deadline would close between them.
        try await withCloud(configure: { $0.deferAccept = 0; $0.idleTimeout = 3 }) { cloud in
            let laptop = try await cloud.signIn("poller", device: "laptop")
            let phone = try await cloud.signIn("poller", device: "phone")
            try await cloud.createTodosZone(laptop)
            try await cloud.subscribe(laptop)
            let courier = try await cloud.registerPush(phone)
            let client = try RawClient(port: cloud.server.port)
            await client.send("GET \(try #require(URL(string: courier)).path)?timeout=60 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            try await cloud.waitForPoll(courier)
            // A silent connection opened after the poll began is closed by the idle timeout: the poll is older still.
            let witness = try RawClient(port: cloud.server.port)
            #expect(await witness.waitForClose(within: .seconds(20)))
            client.drain()
            #expect(!client.isClosed, "the long-poll was cut: \(client.receivedText)")
            // A write then still reaches the waiting poll (sent on a connection of its own: the kept-alive ones idled).
            let body = try JSONEncoder().encode(ModifyRecordsRequest(operations: [RecordOperation(.create, todo("t1", "Late"))], zoneID: todos))
            let writer = try RawClient(port: cloud.server.port)
            await writer.send(
                "POST \(cloud.address.databasePath(.private, "records/modify")) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Authorization: Bearer \(laptop.token)\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n")
            await writer.send(Array(body))
            #expect(await writer.response(within: .seconds(30))?.status == 200)
            let answer = await client.response(within: .seconds(30))
            #expect(answer?.status == 200, "the long-poll was cut: \(client.receivedText)")
            // Idle again after its answer: closed by the deadline.
            #expect(await client.waitForClose(within: .seconds(20)))
        }
    }

    @Test func healthAnswersWhileManyIdleSocketsAreOpenAndTheIdleOnesAreClosed() async throws {
        try await withCloud(configure: { $0.deferAccept = 0; $0.idleTimeout = 2; $0.maxConnectionsPerAddress = 0 }) { cloud in
            // 200 in this process (the thousands of the descriptor flood run in a child of their own).
            let idle = try (0..<200).map { _ in try RawClient(port: cloud.server.port) }
            let probe = try RawClient(port: cloud.server.port)
            await probe.send(Self.health)
            #expect(await probe.response(within: .seconds(30))?.status == 200)
            // Every idle one is closed by the deadline: the cloud lets go of them and each client sees its close.
            let open = await firstValue(within: .seconds(60)) { () -> Int? in
                let open = idle.filter { $0.drain(); return !$0.isClosed }.count
                return open == 0 ? 0 : nil
            }
            #expect(
                open == 0,
                """
                \(idle.filter { !$0.isClosed }.count) idle connections open (\(idle.filter { !$0.ownsItsSocket }.count) of all 200 \
                no longer own their socket), the cloud holds \(cloud.server.connectionCount); \
                its listening socket: \(ListeningSocket.describe(port: cloud.server.port))
                """)
            let after = try RawClient(port: cloud.server.port)
            await after.send(Self.health)
            #expect(await after.response(within: .seconds(30))?.status == 200)
        }
    }

    @Test func connectionsOverThePerAddressCapGetA503AndAClose() async throws {
        try await withCloud(configure: { $0.deferAccept = 0; $0.maxConnectionsPerAddress = 3 }) { cloud in
            var held = try (0..<3).map { _ in try RawClient(port: cloud.server.port) }
            for client in held {
                await client.send(Self.health)
                #expect(await client.response(within: .seconds(30))?.status == 200)
            }
            let excess = try RawClient(port: cloud.server.port)
            let refused = await excess.response(within: .seconds(30))
            #expect(refused?.status == 503)
            #expect(await excess.waitForClose(within: .seconds(30)))
            // One of the three goes: a new connection is admitted.
            held.removeLast()
            let admitted = try await eventually {
                let next = try RawClient(port: cloud.server.port)
                await next.send(Self.health)
                return await next.response(within: .seconds(30))?.status == 200
            }
            #expect(admitted)
            #expect(held.count == 2)
        }
    }

    @Test(.enabled(if: TestCertificateAuthority.isAvailable, "openssl is not installed: no test certificates"))
    func tlsConnectionsOverTheCapAreClosedCleanly() async throws {
        let authority = try await TestCertificateAuthority(
            in: ScratchDirectory.path("ca"))
        let issued = try await authority.issue("cloud")
        // A long idle timeout: in a loaded whole run the refused connection's close has come after 30 s, and the
        // default timeout then closed the two admitted ones too before the test could count them.
        try await withCloud(configure: { $0.deferAccept = 0; $0.maxConnectionsPerAddress = 2; $0.idleTimeout = 600; $0.useTLS(issued) }) { cloud in
            // Accepted connections are set up on several event loops, so which of the three is the excess one is not
            // fixed: exactly one is closed, without a byte, and two stay.
            let clients = try (0..<3).map { _ in try RawClient(port: cloud.server.port) }
            let closed = await firstValue { clients.first { $0.drain(); return $0.isClosed } }
            // Should none close, say whether the excess one was ever accepted (still in the listening socket's queue).
            #expect(
                closed?.receivedText.isEmpty == true,
                """
                none closed: the cloud holds \(cloud.server.connectionCount); \(clients.filter { !$0.ownsItsSocket }.count) clients \
                no longer own their socket; its listening socket: \(ListeningSocket.describe(port: cloud.server.port))
                """)
            // The cloud holds the two others, and they are open.
            #expect(
                await eventually { cloud.server.connectionCount == 2 },
                "the cloud holds \(cloud.server.connectionCount); \(clients.filter { !$0.ownsItsSocket }.count) clients no longer own their socket")
            #expect(clients.filter { $0.drain(); return !$0.isClosed }.count == 2)
        }
    }

    @Test func tooManyOrTooLargeHeadersAreRefused() async throws {
        try await withCloud { cloud in
            let fine = try RawClient(port: cloud.server.port)
            await fine.send("GET /health HTTP/1.1\r\nHost: x\r\n" + (0..<60).map { "X-Field-\($0): value\r\n" }.joined() + "\r\n")
            #expect(await fine.response(within: .seconds(30))?.status == 200)

            let many = try RawClient(port: cloud.server.port)
            await many.send("GET /health HTTP/1.1\r\nHost: x\r\n" + (0..<200).map { "X-Field-\($0): value\r\n" }.joined() + "\r\n")
            #expect(await many.response(within: .seconds(30))?.status == 400)
            #expect(await many.waitForClose(within: .seconds(30)))

            let large = try RawClient(port: cloud.server.port)
            await large.send("GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + String(repeating: "a", count: 40 * 1024) + "\r\n\r\n")
            #expect(await large.response(within: .seconds(30))?.status == 400)
            #expect(await large.waitForClose(within: .seconds(30)))
        }
    }

    @Test func aDeclaredBodyOverTheLimitIsRefusedBeforeItIsSent() async throws {
        try await withCloud { cloud in
            let client = try RawClient(port: cloud.server.port)
            let path = cloud.address.databasePath(.private, "records/modify")
            await client.send("POST \(path) HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(CloudLimits.maxRequestBytes + 1)\r\n\r\n{")
            let answer = await client.response(within: .seconds(30))
            #expect(answer?.status == 400)
            #expect(answer?.body.contains("MB") == true)
        }
    }

    @Test func aChunkedBodyOverTheLimitIsRefused() async throws {
        try await withCloud { cloud in
            let client = try RawClient(port: cloud.server.port)
            let path = cloud.address.databasePath(.private, "records/modify")
            await client.send("POST \(path) HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
            // No length said up front: the cloud counts while it reads, and stops at the limit.
            let chunk = Array("100000\r\n".utf8) + [UInt8](repeating: 0x20, count: 0x100000) + Array("\r\n".utf8)
            for _ in 0..<(CloudLimits.maxRequestBytes / 0x100000 + 1) {
                guard await client.send(chunk) else { break }
            }
            await client.send("0\r\n\r\n")
            let answer = await client.response(within: .seconds(30))
            #expect(answer?.status == 400)
            #expect(answer?.body.contains("MB") == true)
        }
    }
}
