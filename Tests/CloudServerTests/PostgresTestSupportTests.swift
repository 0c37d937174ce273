import CloudServer
import Logging
import PostgresNIO
import PostgresTestSupport
import Testing

@Suite("PostgreSQL test databases")
struct PostgresTestSupportTests {
    /// Two tests at once get two databases, each empty, neither seeing the other's tables; a dropped one is gone.
    @Test func eachTestGetsItsOwnEmptyDatabase() async throws {
        try await PostgresTestDatabase.with { first in
            try await PostgresTestDatabase.with { second in
                #expect(first.name != second.name)
                try await Self.connect(first.url) { connection in
                    let tables = try await Self.tableCount(connection)
                    #expect(tables == 0)
                    try await connection.query("CREATE TABLE marker(id integer)", logger: Self.logger)
                }
                try await Self.connect(second.url) { connection in
                    let tables = try await Self.tableCount(connection)
                    #expect(tables == 0)
                }
            }
            // Reconnect after the inner drop: the outer database is still there, with its table.
            try await Self.connect(first.url) { connection in
                let tables = try await Self.tableCount(connection)
                #expect(tables == 1)
            }
            let dropped = try await PostgresTestDatabase.make()
            guard case .ready(let gone) = dropped else { return }
            await gone.drop()
            await #expect(throws: (any Error).self) {
                try await Self.connect(gone.url) { _ in }
            }
        }
    }

    static let logger = Logger(label: "test")

    static func connect(_ url: DatabaseURL, _ body: (PostgresConnection) async throws -> Void) async throws {
        let connection = try await PostgresConnection.connect(configuration: url.connectionConfiguration(), id: 1, logger: logger)
        do {
            try await body(connection)
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }

    static func tableCount(_ connection: PostgresConnection) async throws -> Int {
        let rows = try await connection.query(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'", logger: logger)
        for try await count in rows.decode(Int.self) { return count }
        return -1
    }
}
