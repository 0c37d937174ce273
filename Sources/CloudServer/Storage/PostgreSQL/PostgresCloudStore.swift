import CloudModel
import Foundation
import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// The cloud's storage in PostgreSQL, through postgres-nio's connection pool: any number of `todo server` instances
/// may share one database.
///
/// A write transaction runs at READ COMMITTED; feed positions come from a counter on the zone's (or database's) row,
/// locked for the rest of the transaction once it takes its first position, so one feed's positions become visible in
/// commit order. A transaction that dies of a deadlock, a serialization failure or a unique key another instance took
/// first is run again (up to three times). A read sees one REPEATABLE READ snapshot (not READ ONLY: what the SQLite store allows in a read, this one does too). An unreachable database answers
/// `TRY_AGAIN_LATER` with a `retryAfter` within `leaseTimeout`, never a hang.
final class PostgresCloudStore: CloudStore {
    /// Where the database is (printed without its password).
    let url: DatabaseURL
    let client: PostgresClient
    let logger: Logger
    /// How long a transaction may wait for a connection before it answers `TRY_AGAIN_LATER`.
    let leaseTimeout: Duration
    private let runner: Task<Void, Never>
    /// The deadlines of leases waiting for a connection, and the task that watches them.
    private let deadlines: LeaseDeadlines
    private let deadlineWatcher: Task<Void, Never>
    /// When `records` needs fresh planner statistics.
    private let statistics = PostgresStatistics()

    /// Connections each instance keeps at most (PostgreSQL's default `max_connections` is 100).
    static let defaultMaximumConnections = 16

    /// Connects, and migrates the schema unless another instance has (or is doing it: then it waits for that).
    static func open(
        _ url: DatabaseURL, logger: Logger, maximumConnections: Int = defaultMaximumConnections, leaseTimeout: Duration = .seconds(5)
    ) async throws -> PostgresCloudStore {
        var configuration = url.clientConfiguration()
        configuration.options.maximumConnections = maximumConnections
        configuration.options.connectTimeout = .seconds(5)
        // A statement stuck behind a lock or a dead peer gives up; the service answers TRY_AGAIN_LATER.
        configuration.options.additionalStartupParameters = [("statement_timeout", "30s"), ("application_name", "todo server")]
        // Migrations on a connection of their own: a refusal (no such database, a wrong password) is told as the
        // server words it, not as a pool that could not lease.
        do {
            var direct = try url.connectionConfiguration()
            direct.options.connectTimeout = .seconds(10)
            let connection = try await PostgresConnection.connect(configuration: direct, id: 0, logger: logger)
            do {
                try await PostgresSchema.migrate(connection, logger: logger)
            } catch {
                try? await connection.close()
                throw error
            }
            try await connection.close()
        } catch {
            throw Self.describe(error, url: url)
        }
        return PostgresCloudStore(url: url, client: PostgresClient(configuration: configuration, backgroundLogger: logger), logger: logger, leaseTimeout: leaseTimeout)
    }

    private init(url: DatabaseURL, client: PostgresClient, logger: Logger, leaseTimeout: Duration) {
        self.url = url
        self.client = client
        self.logger = logger
        self.leaseTimeout = leaseTimeout
        runner = Task { await client.run() }
        let deadlines = LeaseDeadlines(timeout: leaseTimeout)
        self.deadlines = deadlines
        deadlineWatcher = Task { await deadlines.run() }
    }

    func write<T: Sendable>(_ body: @Sendable (any StoreTransaction) async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await leased { connection in
                    try await connection.query("BEGIN", logger: self.logger)
                    let transaction = PostgresStoreTransaction(connection: connection, logger: self.logger, writing: true)
                    do {
                        let value = try await body(transaction)
                        try await transaction.finish()
                        try await connection.query("COMMIT", logger: self.logger)
                        if self.statistics.noteWritten(transaction.recordsWritten) { self.analyzeRecords() }
                        return value
                    } catch {
                        _ = try? await connection.query("ROLLBACK", logger: self.logger)
                        throw error
                    }
                }
            } catch let error as PSQLError where attempt < 3 && Self.isWorthRetrying(error) {
                logger.debug("storage transaction runs again", metadata: ["sqlstate": "\(error.serverInfo?[.sqlState] ?? "")"])
                continue
            } catch {
                throw Self.serviceError(error)
            }
        }
    }

    func read<T: Sendable>(_ body: @Sendable (any StoreTransaction) async throws -> T) async throws -> T {
        do {
            return try await leased { connection in
                try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ", logger: self.logger)
                do {
                    let value = try await body(PostgresStoreTransaction(connection: connection, logger: self.logger))
                    try await connection.query("COMMIT", logger: self.logger)
                    return value
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: self.logger)
                    throw error
                }
            }
        } catch {
            throw Self.serviceError(error)
        }
    }

    /// One statement on a leased connection, without BEGIN and COMMIT around it: one round trip where a read
    /// transaction takes three (every request's session check is one of these).
    func readSingle<T: Sendable>(_ body: @Sendable (any StoreTransaction) async throws -> T) async throws -> T {
        do {
            return try await leased { connection in
                try await body(PostgresStoreTransaction(connection: connection, logger: self.logger))
            }
        } catch {
            throw Self.serviceError(error)
        }
    }

    func putAssetContent(id: String, bytes: Data) async throws {
        try await statement(
            "INSERT INTO asset_contents(id, bytes) VALUES (\(id), \(ByteBuffer(bytes: bytes))) ON CONFLICT (id) DO UPDATE SET bytes = excluded.bytes")
    }

    func assetContent(id: String) async throws -> Data? {
        do {
            return try await leased { connection in
                for try await bytes in try await connection.query("SELECT bytes FROM asset_contents WHERE id = \(id)", logger: self.logger)
                    .decode(Data.self)
                {
                    return bytes
                }
                return nil
            }
        } catch {
            throw Self.serviceError(error)
        }
    }

    func removeAssetContent(ids: [String]) async throws {
        guard !ids.isEmpty else { return }
        try await statement("DELETE FROM asset_contents WHERE id = ANY(\(ids))")
    }

    /// `ANALYZE records` beside the requests, on a pooled connection (see `PostgresStatistics`); a failure is logged.
    private func analyzeRecords() {
        Task {
            do {
                try await statement("ANALYZE records")
            } catch {
                logger.warning("could not refresh the records table's statistics", metadata: ["error": "\(error)"])
            }
            statistics.analyzed()
        }
    }

    var readsAreRoundTrips: Bool { true }

    func shutDown() async {
        runner.cancel()
        // The pool ends once every connection it leased is back. In whole test runs one shutdown in a few waited here
        // for good, every request answered and no connection held: a lease that never comes back must not keep the
        // cloud from stopping, so after 10 s it is said and left to end with the process.
        if await !Self.ends(runner, within: .seconds(10)) {
            logger.warning("the database connection pool did not close within 10 s; its connections end with the process")
        }
        deadlines.stop()
        await deadlineWatcher.value
    }

    /// Whether `task` ends within `limit` (it is not waited for past that).
    private static func ends(_ task: Task<Void, Never>, within limit: Duration) async -> Bool {
        let answer = FirstAnswer()
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            answer.set(continuation)
            Task {
                await task.value
                answer.give(true)
            }
            Task {
                try? await Task.sleep(for: limit)
                answer.give(false)
            }
        }
    }

    /// One statement in a transaction of its own.
    private func statement(_ query: PostgresQuery) async throws {
        do {
            try await leased { connection in _ = try await connection.query(query, logger: self.logger) }
        } catch {
            throw Self.serviceError(error)
        }
    }

    /// Runs `body` on a pooled connection; throws `TRY_AGAIN_LATER` when none can be had within `leaseTimeout`
    /// (the database is down or every connection is busy). Once `body` runs, only its statements' own timeout bounds it.
    ///
    /// The lease waits in a task of its own, which the store's one deadline watcher (`LeaseDeadlines`) cancels if it is
    /// still waiting at the deadline.
    func leased<T: Sendable>(_ body: @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        // A request already cancelled takes no connection (`work` does not inherit the cancellation).
        try Task.checkCancellation()
        let lease = LeaseState()
        let waiting = deadlines.begin { lease.timeOut() }
        defer { deadlines.end(waiting) }
        // `work` is awaited before this function returns: `body` does not outlive the call.
        return try await withoutActuallyEscaping(body) { body in
            let work = Task {
                do {
                    return try await self.client.withConnection { connection in
                        // The deadline passed just as the connection came: it goes back unused.
                        guard lease.start() else { throw CancellationError() }
                        self.deadlines.end(waiting)
                        return try await body(connection)
                    }
                } catch let error where !lease.hasStarted && !(error is CancellationError) {
                    // No connection could be had (the pool's circuit breaker, a refused connect): unavailable.
                    self.logger.warning("no connection to the cloud's database", metadata: ["error": "\(String(reflecting: error))"])
                    throw ServerError(.tryAgainLater, "the cloud's database is unreachable; try again", retryAfter: 2)
                }
            }
            lease.onTimeOut { work.cancel() }
            return try await withTaskCancellationHandler {
                do {
                    return try await work.value
                } catch where lease.hasTimedOut {
                    throw ServerError(.tryAgainLater, "the cloud's database did not answer in time; try again", retryAfter: 2)
                }
            } onCancel: {
                work.cancel()
            }
        }
    }

    /// Deadlocks, serialization failures and unique keys another transaction took meanwhile: running the whole
    /// transaction again sees what the other one wrote and answers from it.
    static func isWorthRetrying(_ error: PSQLError) -> Bool {
        guard error.code == .server, let state = error.serverInfo?[.sqlState] else { return false }
        return state == "40P01" || state == "40001" || state == "23505"
    }

    /// The service's words for a storage failure: lost or refused connections and timeouts are `TRY_AGAIN_LATER`
    /// with a `retryAfter`; anything else is `INTERNAL_ERROR` naming the SQLSTATE only (no SQL, no values).
    static func serviceError(_ error: any Error) -> any Error {
        // The body's own errors (the service's, a decoding failure) pass through as they are.
        guard let error = error as? PSQLError else { return error }
        switch error.code {
        case .server:
            let state = error.serverInfo?[.sqlState] ?? "?"
            // Class 08 (connection), 53 (resources), 57 (operator intervention: shutdown, statement timeout), 40.
            if ["08", "53", "57", "40"].contains(where: state.hasPrefix) {
                return ServerError(.tryAgainLater, "the cloud's database is busy or restarting (SQLSTATE \(state)); try again", retryAfter: 2)
            }
            return ServerError(.internalError, "the cloud's database refused a statement (SQLSTATE \(state))")
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .poolClosed, .uncleanShutdown, .queryCancelled:
            return ServerError(.tryAgainLater, "the cloud's database connection was lost; try again", retryAfter: 2)
        default:
            return ServerError(.internalError, "the cloud's database failed (\(error.code))")
        }
    }

    /// What a failure to open the store says to the operator: where (without the password) and why.
    static func describe(_ error: any Error, url: DatabaseURL) -> any Error {
        guard let error = error as? PSQLError else {
            if let error = error as? ServerError { return DatabaseOpenError(message: "cannot open \(url): \(error.reason)") }
            return DatabaseOpenError(message: "cannot open \(url): \(error)")
        }
        let detail = error.serverInfo?[.message] ?? error.underlying.map { "\(error.code): \($0)" } ?? "\(error.code)"
        return DatabaseOpenError(message: "cannot open \(url): \(detail)")
    }
}

/// The PostgreSQL store could not be opened: the database URL (password hidden) and the reason.
public struct DatabaseOpenError: Error, CustomStringConvertible {
    /// What went wrong, in a sentence.
    public var message: String
    public var description: String { message }
}

/// Whether a transaction got its connection, or its deadline passed first: whichever comes first holds.
private final class LeaseState: Sendable {
    private enum Phase { case waiting, started, timedOut }
    private struct State {
        var phase = Phase.waiting
        var cancel: (@Sendable () -> Void)?
    }
    private let state = Mutex(State())
    var hasStarted: Bool { state.withLock { $0.phase == .started } }
    var hasTimedOut: Bool { state.withLock { $0.phase == .timedOut } }

    /// Marks the connection had; false if the deadline passed first.
    func start() -> Bool {
        state.withLock { state in
            guard state.phase == .waiting else { return false }
            state.phase = .started
            state.cancel = nil
            return true
        }
    }

    /// Marks the deadline passed, unless the connection came first; then runs the `onTimeOut` action.
    func timeOut() {
        let cancel = state.withLock { state -> (@Sendable () -> Void)? in
            guard state.phase == .waiting else { return nil }
            state.phase = .timedOut
            defer { state.cancel = nil }
            return state.cancel
        }
        cancel?()
    }

    /// What the deadline does to the waiting lease (at once, should it have passed already).
    func onTimeOut(_ cancel: @escaping @Sendable () -> Void) {
        let passed = state.withLock { state -> Bool in
            if state.phase == .timedOut { return true }
            if state.phase == .waiting { state.cancel = cancel }
            return false
        }
        if passed { cancel() }
    }
}

/// A continuation resumed by whichever answer comes first.
private final class FirstAnswer: Sendable {
    private let continuation = Mutex<CheckedContinuation<Bool, Never>?>(nil)

    func set(_ continuation: CheckedContinuation<Bool, Never>) { self.continuation.withLock { $0 = continuation } }

    func give(_ value: Bool) {
        continuation.withLock { waiting in
            defer { waiting = nil }
            return waiting
        }?.resume(returning: value)
    }
}
