import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix

/// The process's one HTTP client and its one event-loop thread, made on first use and shut down by `shutDown()`.
///
/// A device talks to one cloud, so one thread is plenty; every `HTTPClientTransport` of the process shares the
/// client (its pool keys connections by host and TLS configuration, so different trust settings never share one).
enum SharedHTTPClient {
    private struct State {
        var group: MultiThreadedEventLoopGroup?
        var client: HTTPClient?
    }

    private static let state = LockedValue(State())

    /// Seconds a connection may take to open (name resolution, TCP and TLS handshake), whatever the request allows.
    static let connectTimeout: Int64 = 10

    /// Seconds an idle kept connection is reused; below the cloud's default `--idle-timeout` of 30 s.
    static let keptConnectionSeconds: Int64 = 20

    /// The shared client, made now when there is none.
    static var client: HTTPClient {
        state.withLock { state in
            if let client = state.client { return client }
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            // Kept connections are dropped before the cloud's (and our nginx snippet's) 30 s idle deadline closes them:
            // a POST is never re-sent, so it must not meet a connection the cloud is about to close.
            var pool = HTTPClient.Configuration.ConnectionPool(idleTimeout: .seconds(keptConnectionSeconds))
            // A refused connection or a certificate that does not verify fails the request at once, not after retries
            // until the connect deadline.
            pool.retryConnectionEstablishment = false
            var configuration = HTTPClient.Configuration(
                tlsConfiguration: nil, redirectConfiguration: .disallow, timeout: .init(connect: .seconds(connectTimeout), write: .seconds(30)),
                connectionPool: pool, proxy: nil, ignoreUncleanSSLShutdown: false, decompression: .disabled)
            configuration.httpVersion = .http1Only
            // No tracing: nothing here bootstraps a tracer, and by default the client takes the process's no-op one
            // and opens a span around every request (with a conformance scan over the whole binary for each type
            // that first meets one).
            configuration.tracing.tracer = nil
            let client = HTTPClient(eventLoopGroupProvider: .shared(group), configuration: configuration)
            state.group = group
            state.client = client
            return client
        }
    }

    /// The event loop group under the shared client (made with it).
    static var group: any EventLoopGroup {
        _ = client
        return state.withLock { $0.group! }
    }

    /// Closes every connection and ends the event-loop thread; the next request makes a new client.
    static func shutDown() async {
        let (client, group) = state.withLock { state in
            defer { state = State() }
            return (state.client, state.group)
        }
        try? await client?.shutdown()
        try? await group?.shutdownGracefully()
    }
}
