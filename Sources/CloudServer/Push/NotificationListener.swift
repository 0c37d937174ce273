import Foundation
import Logging
import PostgresNIO
import Synchronization

/// One cloud instance's LISTEN connection to PostgreSQL: hands every payload of the notice channel to `events`,
/// reconnects with backoff when the connection is lost, and holds the advisory locks of the jobs this instance leads
/// (they end with the connection, so another instance takes over when this one dies).
final class NotificationListener: Sendable {
    /// What the listener reports.
    struct Events: Sendable {
        /// A payload arrived.
        var payload: @Sendable (String) async -> Void
        /// The LISTEN is in place; `afterLoss` when an earlier connection was lost (notices may have been missed).
        var listening: @Sendable (_ afterLoss: Bool) async -> Void
        /// The connection was lost: notices are missed until `listening` comes again.
        var lost: @Sendable () async -> Void
    }

    /// The `application_name` of every listener connection.
    static let applicationName = "cloudtodo-listener"

    let channel: String
    private let configuration: PostgresConnection.Configuration
    private let logger: Logger
    private let minimumBackoff: Double
    private let maximumBackoff: Double
    private struct State {
        var connection: PostgresConnection?
        var heldLocks: Set<Int64> = []
        var loop: Task<Void, Never>?
        var firstListen: CheckedContinuation<Void, Never>?
        var listenedOnce = false
    }
    private let state = Mutex(State())

    /// A listener on `channel`; reconnects after `minimumBackoff` seconds, doubling up to `maximumBackoff`.
    init(
        configuration: PostgresConnection.Configuration, channel: String, logger: Logger, minimumBackoff: Double = 0.05,
        maximumBackoff: Double = 5
    ) {
        var configuration = configuration
        // Named in pg_stat_activity, so an operator (or a test) can tell the listeners from the store's connections.
        configuration.options.additionalStartupParameters.append(("application_name", Self.applicationName))
        self.configuration = configuration
        self.channel = channel
        self.logger = logger
        self.minimumBackoff = minimumBackoff
        self.maximumBackoff = maximumBackoff
    }

    /// Starts listening; returns once the first LISTEN is in place, or after `wait` when PostgreSQL does not answer
    /// (the listener keeps trying in the background).
    func start(_ events: Events, wait: Duration = .seconds(10)) async {
        let loop = Task { await self.run(events) }
        state.withLock { $0.loop = loop }
        let timer = Task {
            try? await Task.sleep(for: wait)
            self.releaseFirstListen()
        }
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool in
                if state.listenedOnce { return true }
                state.firstListen = continuation
                return false
            }
            if done { continuation.resume() }
        }
        timer.cancel()
    }

    /// Stops listening and closes the connection (its locks with it).
    func stop() async {
        let (loop, connection) = state.withLock { state -> (Task<Void, Never>?, PostgresConnection?) in
            defer {
                state.loop = nil
                state.connection = nil
                state.heldLocks = []
            }
            return (state.loop, state.connection)
        }
        loop?.cancel()
        try? await connection?.close()
        await loop?.value
        releaseFirstListen()
    }

    /// The backend process of the LISTEN connection now (tests end it with `pg_terminate_backend`).
    func backendPID() async throws -> Int32? {
        guard let connection = state.withLock({ $0.connection }) else { return nil }
        for try await pid in try await connection.query("SELECT pg_backend_pid()", logger: logger).decode(Int32.self) {
            return pid
        }
        return nil
    }

    /// Sends `payload` on the channel outside any transaction; false when there is no connection now.
    func notify(_ payload: String) async -> Bool {
        guard let connection = state.withLock({ $0.connection }) else { return false }
        do {
            try await connection.query("SELECT pg_notify(\(channel), \(payload))", logger: logger)
            return true
        } catch {
            logger.warning("could not send a notice", metadata: ["error": "\(String(reflecting: error))"])
            return false
        }
    }

    /// Whether this instance holds the advisory lock `key` (taking it when it is free): held until the connection ends.
    func holdLock(_ key: Int64) async -> Bool {
        let (connection, held) = state.withLock { ($0.connection, $0.heldLocks.contains(key)) }
        guard let connection else { return false }
        if held { return true }
        do {
            for try await taken in try await connection.query("SELECT pg_try_advisory_lock(\(key))", logger: logger).decode(Bool.self) {
                guard taken else { return false }
                return state.withLock { state in
                    // The connection may have been replaced meanwhile: the lock went with the old one.
                    guard state.connection === connection else { return false }
                    state.heldLocks.insert(key)
                    return true
                }
            }
        } catch {
            logger.warning("could not take a job lock", metadata: ["error": "\(String(reflecting: error))"])
        }
        return false
    }

    private func releaseFirstListen() {
        let waiting = state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state.firstListen = nil }
            return state.firstListen
        }
        waiting?.resume()
    }

    private func run(_ events: Events) async {
        var backoff = minimumBackoff
        var lostBefore = false
        var connectionNumber = 0
        while !Task.isCancelled {
            var listened = false
            do {
                connectionNumber += 1
                let connection = try await PostgresConnection.connect(configuration: configuration, id: connectionNumber, logger: logger)
                let current = state.withLock { state -> Bool in
                    guard state.loop != nil else { return false }
                    state.connection = connection
                    state.heldLocks = []
                    return true
                }
                guard current else {
                    try? await connection.close()
                    return
                }
                try await connection.listen(on: channel) { notifications in
                    listened = true
                    backoff = minimumBackoff
                    state.withLock { $0.listenedOnce = true }
                    releaseFirstListen()
                    await events.listening(lostBefore)
                    for try await notification in notifications {
                        await events.payload(notification.payload)
                    }
                }
                // The sequence ends only when the connection does.
            } catch {
                if !Task.isCancelled {
                    logger.warning("notice listener disconnected", metadata: ["error": "\(String(reflecting: error))"])
                }
            }
            let gone = state.withLock { state -> PostgresConnection? in
                defer {
                    state.connection = nil
                    state.heldLocks = []
                }
                return state.connection
            }
            try? await gone?.close()
            if Task.isCancelled { return }
            if listened {
                lostBefore = true
                await events.lost()
            }
            let delay = backoff * Double.random(in: 0.8...1.2)
            try? await Task.sleep(for: .milliseconds(Int64(delay * 1000)))
            backoff = min(backoff * 2, maximumBackoff)
        }
    }
}
