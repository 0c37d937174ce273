import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

/// The device's transport on AsyncHTTPClient: http and https (certificates and host names verified against the
/// system's store plus the authorities of `TrustSettings.caFile`), treating every byte of the answer as untrusted.
///
/// Limits: an answer's body is at most `maximumResponseBytes` (refused before reading when its `Content-Length`
/// says more), its head at most `maximumHeaderCount` fields and `maximumHeaderBytes` bytes; a request whose header
/// names or values hold control characters is refused before anything is sent; the whole exchange (name
/// resolution, connection, sending, the answer's head and body) ends at `HTTPRequest.timeout`. Only GET and HEAD
/// are sent again (once) when a kept connection turns out closed before any answer; a POST never is.
public struct HTTPClientTransport: HTTPTransport {
    /// The default cap of an answer's body: the cloud answers at most 16 MB of records, and its assets are at most
    /// 50 MB unless its operator raised `--max-asset-size`.
    public static let defaultMaximumResponseBytes = 64 * 1_048_576
    /// Fields an answer's head may have.
    public static let maximumHeaderCount = 100
    /// Bytes of an answer's head fields (names and values).
    public static let maximumHeaderBytes = 16 * 1024

    /// The TLS configuration trusting the authorities of `TrustSettings.caFile` besides the system's; nil for the
    /// system's store only.
    private let tlsConfiguration: TLSConfiguration?
    /// The cap of an answer's body, in bytes.
    public let maximumResponseBytes: Int

    /// A transport trusting the system's store plus the PEM authorities of `trust.caFile` (several certificates may
    /// be in one file); throws `TransportError` when that file cannot be read or holds no certificate.
    public init(trust: TrustSettings, maximumResponseBytes: Int = Self.defaultMaximumResponseBytes) throws {
        self.maximumResponseBytes = maximumResponseBytes
        if let caFile = trust.caFile {
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.additionalTrustRoots = [.certificates(try Self.authorities(in: caFile))]
            tlsConfiguration = configuration
        } else {
            tlsConfiguration = nil
        }
    }

    /// A transport trusting the system's store only.
    public init(maximumResponseBytes: Int = Self.defaultMaximumResponseBytes) {
        self.maximumResponseBytes = maximumResponseBytes
        tlsConfiguration = nil
    }

    /// Makes the process's shared client and its network thread, if not made yet.
    public func prepare() { _ = SharedHTTPClient.client }

    /// Closes the process's shared connections and ends its network thread (call once before the process exits).
    public static func shutDown() async { await SharedHTTPClient.shutDown() }

    /// The certificates of a PEM file, or a `TransportError` naming the file and the problem.
    static func authorities(in path: String) throws -> [NIOSSLCertificate] {
        guard FileManager.default.isReadableFile(atPath: path) else {
            let exists = FileManager.default.fileExists(atPath: path)
            throw TransportError("cannot read the CA file \(path): \(exists ? "permission denied" : "no such file")")
        }
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMFile(path)
        } catch {
            throw TransportError("the CA file \(path) is not a PEM certificate bundle")
        }
        guard !certificates.isEmpty else { throw TransportError("the CA file \(path) holds no certificate") }
        return certificates
    }

    /// Sends the request and reads the whole answer within its timeout; network, TLS and protocol failures throw
    /// `TransportError`, a cancelled task `CancellationError`.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let outgoing = try prepare(request)
        let deadline = ContinuousClock.now + .milliseconds(Int64(max(0, min(request.timeout, 86_400)) * 1000))
        let host = request.url.host ?? ""
        let retries = ["GET", "HEAD"].contains(outgoing.method.rawValue) ? 1 : 0
        var attempt = 0
        while true {
            do {
                return try await exchange(outgoing, until: deadline)
            } catch let error as HTTPClientError where error == .remoteConnectionClosed && attempt < retries {
                attempt += 1  // a kept connection the cloud closed meanwhile: once more on a fresh one
            } catch is CancellationError {
                throw CancellationError()
            } catch let error as TransportError {
                throw error
            } catch {
                if Task.isCancelled { throw CancellationError() }
                throw await TransportError(describing: error, host: host, port: request.url.port)
            }
        }
    }

    /// The request as AsyncHTTPClient takes it; refuses a URL it cannot send and header fields that could split it.
    private func prepare(_ request: HTTPRequest) throws -> HTTPClientRequest {
        guard let scheme = request.url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw CloudError(.badRequest, "only http:// and https:// clouds are supported, not \(request.url.absoluteString)")
        }
        guard let host = request.url.host, !host.isEmpty else { throw CloudError(.badRequest, "no host in \(request.url.absoluteString)") }
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method.uppercased())
        for (name, value) in request.headers.sorted(by: { $0.key < $1.key }) {
            try Self.checkHeader(name: name, value: value)
            if ["host", "content-length", "connection", "transfer-encoding"].contains(name.lowercased()) { continue }
            outgoing.headers.add(name: name, value: value)
        }
        if let body = request.body {
            outgoing.body = .bytes(ByteBuffer(bytes: body))
        } else if outgoing.method == .POST || outgoing.method == .PUT {
            outgoing.body = .bytes(ByteBuffer())
        }
        outgoing.tlsConfiguration = tlsConfiguration
        return outgoing
    }

    /// The symbols a header name may hold besides letters and digits (RFC 9110 `tchar`).
    private static let tokenSymbols = Set("!#$%&'*+-.^_`|~".utf8)

    /// Refuses a header field that is empty, not a token, or holds a control character (CR and LF would let a value
    /// end the field and start another).
    static func checkHeader(name: String, value: String) throws {
        guard !name.isEmpty,
            name.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || tokenSymbols.contains($0) })
        else {
            throw TransportError("refused to send a header named \(String(reflecting: name)): not a valid field name")
        }
        guard value.utf8.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
            throw TransportError("refused to send header \(name): its value holds a control character (CR, LF or another)")
        }
    }

    /// One exchange, raced against the deadline (AsyncHTTPClient's own deadline ends at the answer's head; this one
    /// also covers the body).
    private func exchange(_ outgoing: HTTPClientRequest, until deadline: ContinuousClock.Instant) async throws -> HTTPResponse {
        let client = SharedHTTPClient.client
        let cap = maximumResponseBytes
        let left = deadline - ContinuousClock.now
        let nioDeadline = NIODeadline.now() + .nanoseconds(left.components.seconds * 1_000_000_000 + left.components.attoseconds / 1_000_000_000)
        return try await withThrowingTaskGroup(of: HTTPResponse?.self) { group in
            group.addTask {
                let response = try await client.execute(outgoing, deadline: nioDeadline)
                let headers = try Self.headers(of: response)
                let body: ByteBuffer
                do {
                    body = try await response.body.collect(upTo: cap)
                } catch is NIOTooManyBytesError {
                    throw TransportError("the answer is larger than the \(cap / 1_048_576) MB this device accepts")
                }
                return HTTPResponse(status: Int(response.status.code), headers: headers, body: Data(buffer: body))
            }
            group.addTask {
                try? await Task.sleep(until: deadline, clock: .continuous)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let response = first else {
                if Task.isCancelled { throw CancellationError() }
                throw TransportError("timed out waiting for the answer")
            }
            return response
        }
    }

    /// The answer's head fields by lowercased name (repeated fields joined with ", "), within the limits.
    static func headers(of response: HTTPClientResponse) throws -> [String: String] {
        guard response.headers.count <= maximumHeaderCount else {
            throw TransportError("the answer has \(response.headers.count) header fields; at most \(maximumHeaderCount) are accepted")
        }
        var bytes = 0
        var headers: [String: String] = [:]
        for (name, value) in response.headers {
            bytes += name.utf8.count + value.utf8.count
            guard bytes <= maximumHeaderBytes else {
                throw TransportError("the answer's header fields are larger than the \(maximumHeaderBytes / 1024) KiB accepted")
            }
            let key = name.lowercased()
            headers[key] = headers[key].map { "\($0), \(value)" } ?? value
        }
        return headers
    }
}

extension Data {
    /// The readable bytes of a buffer.
    init(buffer: ByteBuffer) {
        self = buffer.withUnsafeReadableBytes { Data($0) }
    }
}
