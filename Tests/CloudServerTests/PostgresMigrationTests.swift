import Logging
import PostgresNIO
import PostgresTestSupport
import Testing

@testable import CloudServer

@Suite("PostgreSQL schema migrations")
struct PostgresMigrationTests {
    static let logger = Logger(label: "test")

    /// Two instances opening one empty database at once: the migrations run once, under the advisory lock; the
    /// second waits for the first and finds them applied.
    @Test func twoInstancesStartingAtOnceMigrateOnce() async throws {
        try await PostgresTestDatabase.with { database in
            let configuration = try database.url.connectionConfiguration()
            let first = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: Self.logger)
            let second = try await PostgresConnection.connect(configuration: configuration, id: 2, logger: Self.logger)
            // Each creates every table: without the lock one of them fails on a table the other made.
            async let a = PostgresSchema.migrate(first, logger: Self.logger)
            async let b = PostgresSchema.migrate(second, logger: Self.logger)
            let applied = try await [a, b]
            #expect(applied.map(\.count).sorted() == [0, PostgresSchema.migrations.count])
            var names: [String] = []
            for try await name in try await first.query("SELECT name FROM schema_migrations ORDER BY name", logger: Self.logger).decode(String.self) {
                names.append(name)
            }
            #expect(names == PostgresSchema.migrations.map(\.name).sorted())
            // A third start later applies nothing.
            #expect(try await PostgresSchema.migrate(first, logger: Self.logger).isEmpty)
            try await first.close()
            try await second.close()
        }
    }

    /// A migration that fails leaves nothing behind: neither its tables nor its name.
    @Test func aFailingMigrationRollsBackWhole() async throws {
        try await PostgresTestDatabase.with { database in
            let connection = try await PostgresConnection.connect(
                configuration: try database.url.connectionConfiguration(), id: 1, logger: Self.logger)
            let broken: [(name: String, statements: [String])] = [("bad", ["CREATE TABLE half(id integer)", "CREATE TABLE half(id integer)"])]
            await #expect(throws: PSQLError.self) {
                try await PostgresSchema.migrate(connection, logger: Self.logger, migrations: broken)
            }
            var tables = 0
            for try await count in try await connection.query(
                "SELECT count(*) FROM information_schema.tables WHERE table_name IN ('half', 'schema_migrations')", logger: Self.logger
            ).decode(Int.self) {
                tables = count
            }
            #expect(tables == 0)
            try await connection.close()
        }
    }
}
