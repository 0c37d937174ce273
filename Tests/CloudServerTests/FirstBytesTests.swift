import CloudModel
import CloudServer
import Foundation
import NIOHTTP1
import TLSTestSupport
import TestSupport
import Testing

/// Connections whose TLS and HTTP handlers are built only when their first bytes arrive (`FirstBytesHandler`): what
/// arrives late or in pieces is served whole, a silent one is still closed at the idle timeout, over HTTPS too, and a
/// shutdown closes the silent ones instead of waiting for them.
/// Its clouds accept at once (`deferAccept = 0`): the tests hold silent connections, which the deferred accept would
/// keep in the kernel, out of the cloud's reach.
@Suite("Connections before their first bytes")
struct FirstBytesTests {
    @Test func aRequestWhoseFirstBytesComeLateAndInPiecesIsAnsweredAndTheConnectionKeptAlive() async throws {
        try await withCloud(configure: { $0.deferAccept = 0; $0.idleTimeout = 60 }) { cloud in
            let client = try RawClient(port: cloud.server.port)
            // Held, with nothing built yet, before it says anything.
            #expect(await eventually { cloud.server.connectionCount == 1 })
            await client.send("GET /hea")
            client.drain()
            #expect(!client.isClosed)
            await client.send("lth HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(await client.response(within: .seconds(30))?.status == 200)
            // The pipeline built for the first request serves the next one on the same connection.
            await client.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(await client.response(within: .seconds(30))?.status == 200)
        }
    }

    @Test(.enabled(if: TestCertificateAuthority.isAvailable, "openssl is not installed: no test certificates"))
    func aSilentTLSConnectionIsClosedAtTheIdleTimeoutWhileHTTPSIsServed() async throws {
        let authority = try await TestCertificateAuthority(in: ScratchDirectory.path("ca"))
        let issued = try await authority.issue("cloud")
        try await withCloud(configure: { $0.deferAccept = 0; $0.useTLS(issued); $0.idleTimeout = 3 }) { cloud in
            let silent = try RawClient(port: cloud.server.port)
            try await TLSTestClient.with(trusting: authority.certificate) { client in
                let health = try await client.send(.GET, cloud.server.baseURL.absoluteString + "/health")
                #expect(health.status == 200)
            }
            // Never a byte from the cloud: the handshake was never begun.
            #expect(
                await silent.waitForClose(within: .seconds(30)),
                """
                the cloud holds \(cloud.server.connectionCount); the client \(silent.ownsItsSocket ? "still" : "no longer") owns its \
                socket; its listening socket: \(ListeningSocket.describe(port: cloud.server.port))
                """)
            #expect(silent.receivedText.isEmpty)
        }
    }

    @Test func shuttingDownClosesConnectionsThatNeverSpoke() async throws {
        // The idle timeout is far: only the shutdown can close them.
        let cloud = try await TestCloud(configure: { $0.deferAccept = 0; $0.idleTimeout = 600; $0.maxConnectionsPerAddress = 0 })
        let silent = try (0..<20).map { _ in try RawClient(port: cloud.server.port) }
        #expect(await eventually { cloud.server.connectionCount == 20 })
        let closing = Task { await cloud.close() }
        let done = await firstValue(within: 120) { silent.allSatisfy { $0.drain(); return $0.isClosed } ? true : nil }
        #expect(done == true, "\(silent.filter { !$0.isClosed }.count) silent connections still open during the shutdown")
        await closing.value
    }
}
