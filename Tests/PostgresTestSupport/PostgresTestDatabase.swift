import CloudServer
import Foundation
import Logging
import PostgresNIO
import TestSupport

/// A fresh, empty database on a real PostgreSQL, made for one test and dropped after it.
///
/// The server is `$TODO_TEST_DATABASE_URL` when set (its role needs CREATEDB: `.ci/run` starts one), else a cluster
/// this test process starts in a temporary directory and stops when it ends (`LocalPostgresCluster`). Where neither
/// can be had, tests print `skipped: <why>` and pass; `TODO_TEST_POSTGRES=skip` forces that.
public struct PostgresTestDatabase: Sendable {
    /// Where the database is; `url.secretText` to hand to another process (`todo server --database-url`).
    public let url: DatabaseURL
    /// Its name.
    public var name: String { url.database }

    /// A new empty database, or why PostgreSQL cannot be had here. Throws when the server is there but refuses.
    public static func make() async throws -> PostgresTestAvailability {
        let server: DatabaseURL
        switch await PostgresTestServer.shared.administrationURL() {
        case .failure(let reason): return .skipped(reason.description)
        case .success(let url): server = url
        }
        let name = "cloudtodo_test_\(getpid())_\(UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: ""))"
        try await PostgresTestServer.administer(server) { connection in
            try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: PostgresTestServer.logger)
        }
        return .ready(PostgresTestDatabase(url: server.withDatabase(name)))
    }

    /// Runs `body` with a fresh database and drops it afterwards, even when `body` throws; when PostgreSQL cannot be
    /// had, prints `skipped: <why>` (naming `test`) and returns without running `body`.
    public static func with(
        _ test: String = #function, _ body: (PostgresTestDatabase) async throws -> Void
    ) async throws {
        switch try await make() {
        case .skipped(let reason):
            print("skipped: \(test): \(reason)")
        case .ready(let database):
            do {
                try await body(database)
            } catch {
                await database.drop()
                throw error
            }
            await database.drop()
        }
    }

    /// Drops the database, ending any session still in it.
    public func drop() async {
        guard case .success(let server) = await PostgresTestServer.shared.administrationURL() else { return }
        try? await PostgresTestServer.administer(server) { connection in
            try await connection.query(
                PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: PostgresTestServer.logger)
        }
    }

    /// Runs one statement on the server as the role that made the database, connected to another database: to stop
    /// the test's database from taking connections, or to end its sessions (`pg_terminate_backend`).
    public func administer(_ sql: String) async throws {
        guard case .success(let server) = await PostgresTestServer.shared.administrationURL() else { return }
        do {
            try await PostgresTestServer.administer(server) { connection in
                try await connection.query(PostgresQuery(unsafeSQL: sql), logger: PostgresTestServer.logger)
            }
        } catch {
            // PSQLError's own description hides the server's words; a failing test needs them.
            throw PostgresUnavailable(description: "\(sql): \(String(reflecting: error))")
        }
    }

    /// Why PostgreSQL tests skip here, or nil when they run (for `.enabled(if:)` traits; starts the server once).
    public static func skipReason() async -> String? {
        if case .failure(let reason) = await PostgresTestServer.shared.administrationURL() { return reason.description }
        return nil
    }
}

/// A database for a test, or the line saying why there is none.
public enum PostgresTestAvailability: Sendable {
    /// A fresh empty database.
    case ready(PostgresTestDatabase)
    /// No PostgreSQL here, and why.
    case skipped(String)
}

/// Why no PostgreSQL server can be had in this process.
struct PostgresUnavailable: Error, CustomStringConvertible {
    var description: String
}

/// The one PostgreSQL server of this test process: found or started on first use, then kept.
actor PostgresTestServer {
    static let shared = PostgresTestServer()
    static let logger = Logger(label: "cloudtodo.test.postgres")

    /// The one search for a server: callers arriving while it runs (the actor is reentrant at its awaits) wait for it
    /// instead of starting a second cluster.
    private var finding: Task<Result<DatabaseURL, PostgresUnavailable>, Never>?

    /// A URL of the server with a role that may create databases (its own database: the one to connect to for that).
    func administrationURL() async -> Result<DatabaseURL, PostgresUnavailable> {
        if let finding { return await finding.value }
        let search = Task { await locate() }
        finding = search
        return await search.value
    }

    private func locate() async -> Result<DatabaseURL, PostgresUnavailable> {
        let environment = ProcessInfo.processInfo.environment
        if environment["TODO_TEST_POSTGRES"] == "skip" {
            return .failure(PostgresUnavailable(description: "TODO_TEST_POSTGRES=skip"))
        }
        if let text = environment["TODO_TEST_DATABASE_URL"], !text.isEmpty {
            let url: DatabaseURL
            do {
                url = try DatabaseURL(parsing: text)
            } catch {
                return .failure(PostgresUnavailable(description: "TODO_TEST_DATABASE_URL is not usable: \(error)"))
            }
            do {
                try await Self.administer(url) { connection in
                    try await connection.query("SELECT 1", logger: Self.logger)
                }
            } catch {
                return .failure(PostgresUnavailable(description: "cannot reach TODO_TEST_DATABASE_URL \(url): \(String(reflecting: error))"))
            }
            return .success(url)
        }
        if let reason = LocalPostgresCluster.unavailableReason() {
            return .failure(PostgresUnavailable(description: reason))
        }
        do {
            // initdb and pg_ctl take seconds: on a thread of their own, not one every task shares.
            let cluster = try await onThreadOfItsOwn { try LocalPostgresCluster.start() }
            return .success(
                DatabaseURL(user: LocalPostgresCluster.superuser, host: "127.0.0.1", port: cluster.port, database: "postgres", tlsMode: .disable))
        } catch {
            return .failure(PostgresUnavailable(description: "could not start PostgreSQL in a temporary directory: \(error)"))
        }
    }

    /// Runs `body` on one new connection to `url`, closed afterwards.
    static func administer(_ url: DatabaseURL, _ body: (PostgresConnection) async throws -> Void) async throws {
        let connection = try await PostgresConnection.connect(configuration: url.connectionConfiguration(), id: 0, logger: logger)
        do {
            try await body(connection)
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }
}
