import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The test process's one HTTP client for requests to test clouds: AsyncHTTPClient on NIO's shared event loops.
///
/// Not URLSession: on Linux every session keeps a libcurl multi handle and dispatch sources for good, and with a
/// session per test cloud (hundreds in a run) a request's completion was once never delivered, stopping the whole
/// test process with every thread idle.
enum TestHTTPClient {
    /// The shared client; it follows redirects, as URLSession did for these tests. Up to 64 connections a cloud, so
    /// concurrent requests reach it at once (tests send two dozen side by side); kept connections are let go after
    /// 20 s, before a test cloud's default 30 s idle deadline closes them under a request.
    static let shared = HTTPClient(
        eventLoopGroup: HTTPClient.defaultEventLoopGroup,
        configuration: .init(
            redirectConfiguration: .follow(max: 5, allowCycles: false), timeout: .init(connect: .seconds(30)),
            connectionPool: .init(idleTimeout: .seconds(20), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)))

    /// One request to `url`; its status and whole body. A request without an answer fails after `timeout`: a bound
    /// for failure only, long because it covers the whole exchange (URLSession's 60 s counted only silence), and a
    /// PostgreSQL query page under a fully loaded machine has taken over a minute.
    static func send(
        _ method: String, _ url: String, body: Data? = nil, headers: [String: String] = [:], timeout: Duration = .seconds(300)
    ) async throws -> (status: Int, body: Data) {
        var request = HTTPClientRequest(url: url)
        request.method = HTTPMethod(rawValue: method)
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        for (name, value) in headers { request.headers.replaceOrAdd(name: name, value: value) }
        let response = try await shared.execute(request, timeout: .nanoseconds(timeout.nanoseconds))
        let bytes = try await response.body.collect(upTo: 512 * 1_048_576)
        return (Int(response.status.code), Data(bytes.readableBytesView))
    }
}

extension Duration {
    /// The whole duration in nanoseconds (clamped).
    fileprivate var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds.multipliedReportingOverflow(by: 1_000_000_000).overflow ? .max : seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
