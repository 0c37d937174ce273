import CloudModel
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// Starts and runs the cloud: the HTTP front of `CloudService` on Hummingbird.
public enum CloudServer {
    /// Starts a server in the background and returns once it accepts connections (tests, the embedded cloud).
    public static func start(_ configuration: ServerConfiguration) async throws -> RunningCloudServer {
        var logger = Logger(label: "cloudtodo.server")
        logger.logLevel = configuration.logLevel
        let store = try SQLiteCloudStore(directory: configuration.dataDirectory)
        let service = CloudService(configuration: configuration, store: store, logger: logger)
        try await service.compact()
        let (portStream, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            responder: CloudResponder(service: service),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "CloudTodo"),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? configuration.port)
                portContinuation.finish()
            },
            logger: logger)
        // Run inside our own service group so shutdown is graceful: connections drain, nothing is cut mid-write.
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        let task = Task {
            do {
                try await group.run()
            } catch {
                logger.error("server stopped", metadata: ["error": "\(error)"])
            }
            portContinuation.finish()
        }
        let compaction = Task {
            let interval = min(max(configuration.tombstoneRetention / 2, 1), 3600)
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(interval))
                try? await service.compact()
            }
        }
        var iterator = portStream.makeAsyncIterator()
        guard let port = await iterator.next() else {
            compaction.cancel()
            throw ServerStartError(reason: "could not listen on \(configuration.host):\(configuration.port)")
        }
        return RunningCloudServer(port: port, host: configuration.host, group: group, hub: service.hub, tasks: [task, compaction])
    }

    /// Runs a server in the foreground until SIGINT or SIGTERM (`todo server`).
    public static func run(_ configuration: ServerConfiguration, onReady: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        let server = try await start(configuration)
        onReady(server.port)
        let (signals, continuation) = AsyncStream.makeStream(of: Int32.self)
        let sources = [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number)
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
        for await _ in signals { break }
        sources.forEach { $0.cancel() }
        await server.shutdown()
    }
}

/// Why a server did not start.
public struct ServerStartError: Error, CustomStringConvertible {
    public var reason: String
    public var description: String { reason }
}

/// A server running in the background; `shutdown()` stops it.
public final class RunningCloudServer: Sendable {
    /// The port it listens on.
    public let port: Int
    /// The interface it listens on.
    public let host: String
    private let group: ServiceGroup
    private let hub: PushHub
    private let tasks: [Task<Void, Never>]

    init(port: Int, host: String, group: ServiceGroup, hub: PushHub, tasks: [Task<Void, Never>]) {
        self.port = port
        self.host = host
        self.group = group
        self.hub = hub
        self.tasks = tasks
    }

    /// `http://host:port`.
    public var baseURL: URL { URL(string: "http://\(host):\(port)")! }

    /// Stops accepting requests and waits for the server to finish.
    public func shutdown() async {
        // Long-polls would hold a graceful shutdown for their whole timeout: answer them (204) first.
        await hub.close()
        await group.triggerGracefulShutdown()
        for task in tasks.dropFirst() { task.cancel() }
        for task in tasks { await task.value }
    }
}

/// Hummingbird glue: HTTP request in, `CloudService` answer out, one log line per request.
struct CloudResponder: HTTPResponder {
    typealias Context = CloudRequestContext
    let service: CloudService

    func respond(to request: Request, context: Context) async throws -> Response {
        let started = ContinuousClock.now
        let path = request.uri.path
        let answer: ServiceResponse
        do {
            // An asset upload may be larger than a request (up to the configured asset size, and one byte more to tell).
            let limit = path.hasPrefix("/assets/") ? max(CloudLimits.maxRequestBytes, service.configuration.maxAssetBytes + 1) : CloudLimits.maxRequestBytes
            let body = try await request.body.collect(upTo: limit)
            answer = await service.handle(
                ServiceRequest(
                    method: request.method.rawValue,
                    segments: Self.segments(path),
                    query: Self.query(request.uri.query),
                    bearerToken: Self.bearer(request.headers[.authorization]),
                    body: Data(body.readableBytesView),
                    origin: "http://\(request.head.authority ?? "\(service.configuration.host):\(service.configuration.port)")",
                    clientAddress: ClientAddress.resolve(
                        peerIP: context.remoteAddress?.ipAddress, realIP: request.headers[.init(ClientAddress.realIPHeader)!])))
        } catch {
            answer = CloudService.errorResponse(
                ServerError(.limitExceeded, "request body over \(CloudLimits.maxRequestBytes / 1_048_576) MB"))
        }
        let elapsed = ContinuousClock.now - started
        service.logger.info(
            "\(request.method.rawValue) \(Self.loggedPath(path)) \(answer.status)",
            metadata: ["ms": "\(String(format: "%.2f", Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000))"])
        var headers = HTTPFields()
        if !answer.body.isEmpty { headers[.contentType] = answer.contentType ?? "application/json; charset=utf-8" }
        return Response(
            status: HTTPResponse.Status(code: answer.status), headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
    }

    /// The path as the request log shows it: a courier URL's push token is the long-poll's only credential, so it
    /// never reaches the log.
    static func loggedPath(_ path: String) -> String {
        guard let range = path.range(of: "/courier/") else { return path }
        return path[..<range.upperBound] + "(push token)"
    }

    private static func segments(_ path: String) -> [String] {
        // Most segments have nothing to decode: only those with a "%" go through Foundation.
        path.split(separator: "/", omittingEmptySubsequences: true).map {
            $0.contains("%") ? String($0).removingPercentEncoding ?? String($0) : String($0)
        }
    }

    private static func query(_ query: String?) -> [String: String] {
        var result: [String: String] = [:]
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            func decode(_ s: Substring) -> String {
                String(s).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(s)
            }
            guard let key = parts.first else { continue }
            result[decode(key)] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return result
    }

    private static func bearer(_ header: String?) -> String? {
        guard let header, header.lowercased().hasPrefix("bearer ") else { return nil }
        return String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
    }
}
