import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

/// An HTTPS client (AsyncHTTPClient over swift-nio-ssl) that trusts only the test CA and checks host names, for the
/// TLS tests of the cloud and of nginx in front of it.
final class TLSTestClient: Sendable {
    private let client: HTTPClient

    /// A client trusting `authority` (a PEM file) only; made by `with`, which always shuts it down (AsyncHTTPClient
    /// traps in debug builds when a client reaches its deinit running).
    private init(trusting authority: URL) throws {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(authority.path))
        tls.minimumTLSVersion = .tlsv12
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: .init(tlsConfiguration: tls))
    }

    /// Runs `body` with a client trusting `authority`, and always shuts the client down after it.
    static func with<T>(trusting authority: URL, _ body: (TLSTestClient) async throws -> T) async throws -> T {
        let client = try TLSTestClient(trusting: authority)
        do {
            let result = try await body(client)
            await client.close()
            return result
        } catch {
            await client.close()
            throw error
        }
    }

    /// Sends one request; returns status and body.
    func send(
        _ method: HTTPMethod, _ url: String, body: Data? = nil, token: String? = nil, timeout: TimeAmount = .seconds(30)
    ) async throws -> (status: Int, body: Data) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: "Content-Type", value: "application/json")
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await client.execute(request, timeout: timeout)
        let bytes = try await response.body.collect(upTo: 32 * 1_048_576)
        return (Int(response.status.code), Data(bytes.readableBytesView))
    }

    /// POSTs `body` as JSON and decodes a 200 answer.
    func post<Body: Encodable, Answer: Decodable>(_ url: String, _ body: Body, token: String? = nil, as: Answer.Type = Answer.self) async throws -> Answer {
        let (status, data) = try await send(.POST, url, body: try JSONEncoder().encode(body), token: token)
        guard status == 200 else { throw TLSTestClientError("\(url) answered \(status): \(String(decoding: data, as: UTF8.self))") }
        return try JSONDecoder().decode(Answer.self, from: data)
    }

    /// Closes the client's connections.
    func close() async {
        try? await client.shutdown()
    }
}

/// An unexpected answer over TLS.
struct TLSTestClientError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
