import Foundation

/// One HTTP request as the client sends it.
public struct HTTPRequest: Sendable, Hashable {
    public var method: String
    public var url: URL
    public var headers: [String: String]
    public var body: Data?
    /// Seconds before the transport gives up waiting.
    public var timeout: Double

    /// A request to a URL with a method, headers and an optional body.
    public init(method: String, url: URL, headers: [String: String] = [:], body: Data? = nil, timeout: Double = 60) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// One HTTP response: status, headers and body.
public struct HTTPResponse: Sendable, Hashable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data

    /// A response with a status, headers and a body.
    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// A failure below HTTP: the request could not reach the cloud, or its answer was lost.
public struct TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    public var reason: String

    /// A transport failure described in words.
    public init(_ reason: String) { self.reason = reason }

    public var description: String { reason }
}

/// Sends HTTP requests; the seam between the typed client and the network.
public protocol HTTPTransport: Sendable {
    /// Sends a request and returns the response, or throws `TransportError` when the network failed.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse

    /// Makes now what the first request would make (a client, its thread), so that work overlaps the caller's own
    /// start-up instead of delaying its first request.
    func prepare()
}

extension HTTPTransport {
    /// Nothing to make ahead.
    public func prepare() {}
}
