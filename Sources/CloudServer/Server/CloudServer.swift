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
        let plan = try ListenPlan(configuration, logger: logger)
        try DataDirectoryPermissions.prepare(configuration.dataDirectory)
        let bus = try makeBus(configuration, logger: logger)
        let store = try await makeStore(configuration, logger: logger)
        try DataDirectoryPermissions.tighten(configuration.dataDirectory)
        let service = CloudService(configuration: configuration, store: store, bus: bus, logger: logger)
        await service.startPushBus()
        do {
            if await service.bus.leads(.compaction) { try await service.compact() }
        } catch {
            await service.bus.shutDown()
            await store.shutDown()
            throw error
        }
        let (portStream, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            responder: CloudResponder(service: service),
            server: plan.serverBuilder(logger: logger),
            configuration: .init(
                address: .hostname(ListenAddress.unbracketed(configuration.host), port: configuration.port), serverName: "CloudTodo",
                backlog: 1024),
            onServerRunning: { [logger] channel in
                do {
                    try await plan.guardAccepts(on: channel, logger: logger)
                } catch {
                    logger.error("could not guard the listening socket", metadata: ["error": "\(error)"])
                }
                portContinuation.yield(channel.localAddress?.port ?? configuration.port)
                portContinuation.finish()
            },
            logger: logger)
        // Run inside our own service group so shutdown is graceful: connections drain, nothing is cut mid-write.
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        let (failures, failureContinuation) = AsyncStream.makeStream(of: String.self)
        let task = Task {
            do {
                try await group.run()
            } catch {
                logger.error("server stopped", metadata: ["error": "\(error)"])
                failureContinuation.yield("\(error)")
            }
            failureContinuation.finish()
            portContinuation.finish()
        }
        let compaction = Task {
            let interval = min(max(configuration.tombstoneRetention / 2, 1), 3600)
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(interval))
                await service.compactIfElected()
            }
        }
        // A session ended by a revocation, a password change or a removed account (also by the operator's tools in
        // another process) ends its device's long-poll within this interval: the device then learns it at once.
        let sweep = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(CloudService.pollSweepInterval))
                await service.endPollsOfGoneTokens()
            }
        }
        var iterator = portStream.makeAsyncIterator()
        guard let port = await iterator.next() else {
            compaction.cancel()
            sweep.cancel()
            await compaction.value
            await sweep.value
            await service.bus.shutDown()
            await store.shutDown()
            var reasons = failures.makeAsyncIterator()
            let reason = await reasons.next().map { ": \($0)" } ?? ""
            throw ServerStartError(reason: "could not listen on \(plan.displayAddress)\(reason)")
        }
        guard let baseURL = ListenAddress.url(
            scheme: configuration.scheme, host: ListenAddress.localReach(configuration.host), port: port)
        else {
            throw ServerStartError(reason: "--host \(configuration.host) cannot be written in a URL")
        }
        return RunningCloudServer(
            port: port, host: configuration.host, baseURL: baseURL, group: group, service: service, registry: plan.registry,
            tasks: [task, compaction, sweep])
    }

    /// The store `configuration.storage` names, opened (and migrated).
    static func makeStore(_ configuration: ServerConfiguration, logger: Logger) async throws -> any CloudStore {
        try await openStore(configuration.storage, dataDirectory: configuration.dataDirectory, logger: logger)
    }

    /// The store `storage` names (SQLite files in `dataDirectory`, or a PostgreSQL database), opened and migrated.
    static func openStore(_ storage: CloudStorage, dataDirectory: URL, logger: Logger) async throws -> any CloudStore {
        switch storage {
        case .sqlite: try SQLiteCloudStore(directory: dataDirectory)
        case .postgres(let url): try await PostgresCloudStore.open(url, logger: logger)
        case .memory: MemoryCloudStore()
        }
    }

    /// Runs a server in the foreground until SIGINT or SIGTERM (`todo server`), holding the data directory's
    /// `server.lock` meanwhile; `onReady` gets the address it answers at.
    public static func run(_ configuration: ServerConfiguration, onReady: @escaping @Sendable (URL) -> Void = { _ in }) async throws {
        // Signals are caught from the start: a SIGTERM during start-up still ends the server gracefully.
        let (signals, continuation) = AsyncStream.makeStream(of: Int32.self)
        let sources = [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number)
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
        defer { sources.forEach { $0.cancel() } }
        let lock = try ServerLockFile.acquire(in: configuration.dataDirectory)
        defer { lock.release() }
        let server = try await start(configuration)
        do {
            try lock.publish(.init(pid: getpid(), url: server.baseURL.absoluteString, started: Date().timeIntervalSince1970))
        } catch {
            await server.shutdown()
            throw error
        }
        onReady(server.baseURL)
        for await _ in signals { break }
        await server.shutdown()
    }
}

/// A body whose declared length is over the limit.
private struct RequestTooLarge: Error {}

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
    /// What answers its requests (tests look inside).
    let service: CloudService
    /// The storage it serves from (tests reach it to set up what no route offers).
    var store: any CloudStore { service.store }
    private let tasks: [Task<Void, Never>]
    private let registry: ConnectionRegistry

    /// Connections held now.
    public var connectionCount: Int { registry.count }

    /// `http://host:port` or `https://host:port` (an IPv6 host in brackets, a wildcard host as loopback).
    public let baseURL: URL

    init(
        port: Int, host: String, baseURL: URL, group: ServiceGroup, service: CloudService, registry: ConnectionRegistry,
        tasks: [Task<Void, Never>]
    ) {
        self.service = service
        self.registry = registry
        self.port = port
        self.host = host
        self.baseURL = baseURL
        self.group = group
        self.tasks = tasks
    }

    /// Stops accepting requests and waits for the server to finish.
    public func shutdown() async {
        // Long-polls would hold a graceful shutdown for their whole timeout: answer them (204) first.
        await service.hub.close()
        await group.triggerGracefulShutdown()
        for task in tasks.dropFirst() { task.cancel() }
        for task in tasks { await task.value }
        await service.bus.shutDown()
        await service.store.shutDown()
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
            // A declared length over the limit is refused before a byte of the body is read.
            if let declared = request.headers[.contentLength].flatMap(Int.init), declared >= limit { throw RequestTooLarge() }
            let body = try await request.body.collect(upTo: limit)
            answer = await service.handle(
                ServiceRequest(
                    method: request.method.rawValue,
                    segments: Self.segments(path),
                    query: Self.query(request.uri.query),
                    bearerToken: Self.bearer(request.headers[.authorization]),
                    body: Data(body.readableBytesView),
                    origin: origin(of: request),
                    peer: context.remoteAddress, realIP: request.headers[ClientAddress.realIPField],
                    trustedProxies: service.configuration.trustedProxies))
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

    /// `scheme://authority` the client reached: what upload and courier URLs are built on. Behind a TLS proxy
    /// (`--insecure-http`) the proxy's `X-Forwarded-Proto` says whether the client spoke HTTPS.
    private func origin(of request: Request) -> String {
        let configuration = service.configuration
        var scheme = configuration.scheme
        if configuration.insecureHTTP, let forwarded = request.headers[Self.forwardedProto]?.lowercased(), ["http", "https"].contains(forwarded) {
            scheme = forwarded
        }
        let authority = request.head.authority
            ?? "\(ListenAddress.urlHost(ListenAddress.localReach(configuration.host))):\(configuration.port)"
        return "\(scheme)://\(authority)"
    }

    private static let forwardedProto = HTTPFields.Element.Name("X-Forwarded-Proto")!

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
