import CloudModel
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

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
                backlog: ListenPlan.backlog),
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
        case .sqlite: try await SQLiteCloudStore.open(directory: dataDirectory)
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

    /// Which step `shutdown()` is at ("running" before it begins): a shutdown that never ends says where it waits.
    public var shutdownStage: String { "\(stage.withLock { $0 }); \(registry.count) connections held" }
    private let stage = Mutex("running")

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
        enter("answering long-polls")
        await service.hub.close()
        enter("asking the HTTP server to stop")
        await group.triggerGracefulShutdown()
        for task in tasks.dropFirst() { task.cancel() }
        for (index, task) in tasks.enumerated() {
            enter(index == 0 ? "waiting for the HTTP server's connections to end" : "waiting for background task \(index)")
            await task.value
        }
        enter("closing the push bus")
        await service.bus.shutDown()
        enter("closing the store")
        await service.store.shutDown()
        enter("stopped")
    }

    private func enter(_ step: String) { stage.withLock { $0 = step } }
}
