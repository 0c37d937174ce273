import CloudServer
import Foundation
import Logging
import PostgresNIO

/// `todo-bench postgres-store URL [RECORDS]`: one cloud instance on PostgreSQL beside one on SQLite, in one run —
/// sequential writes in 200-record batches, then the whole zone read back through `changes/zone`. The URL's role
/// needs CREATEDB: each run gets a fresh database, dropped afterwards.
enum PostgresStoreBench {
    static func run(url text: String, records: Int) async throws {
        let server = try DatabaseURL(parsing: text)
        print("== one cloud instance, SQLite beside PostgreSQL at \(server) (release build, \(ProcessInfo.processInfo.activeProcessorCount) cores) ==")
        for storage in ["sqlite", "postgres"] {
            print("-- \(storage)")
            var extra: [String] = []
            var database: DatabaseURL?
            if storage == "postgres" {
                let made = server.withDatabase("cloudtodo_bench_\(getpid())")
                try await administer(server, "DROP DATABASE IF EXISTS \(made.database)")
                try await administer(server, "CREATE DATABASE \(made.database)")
                database = made
                extra = ["--database-url", made.secretText]
            }
            let cloud = try ServerProcess(extraArguments: extra)
            let (writer, connection) = try ServerBench.sequentialWrites(cloud, records: records)
            let start = ContinuousClock.now
            let read = try ServerBench.readAllRaw(connection, writer)
            let elapsed = ContinuousClock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            guard read == records else { throw DriverBenchFailure("read \(read) of \(records) records") }
            print(String(format: "full changes/zone read:                 %.0f records/s  (%d records in %.2f s)", Double(read) / seconds, read, seconds))
            cloud.stop()
            if let database { try await administer(server, "DROP DATABASE IF EXISTS \(database.database) WITH (FORCE)") }
        }
    }

    /// One statement on a connection of its own to the URL's database.
    static func administer(_ url: DatabaseURL, _ sql: String) async throws {
        let logger = Logger(label: "bench")
        let connection = try await PostgresConnection.connect(configuration: try url.connectionConfiguration(), id: 1, logger: logger)
        do {
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }
}
