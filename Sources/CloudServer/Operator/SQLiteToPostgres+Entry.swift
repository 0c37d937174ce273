import Foundation
import Logging
import PostgresNIO

extension SQLiteToPostgres {
    /// Copies the stopped SQLite cloud in `directory` into the empty PostgreSQL database at `databaseURL` (its schema
    /// made first, as an instance starting would), in one transaction; `progress` hears of every page copied.
    public static func migrate(
        from directory: URL, databaseURL: DatabaseURL, progress: @Sendable (MigrationProgress) -> Void = { _ in }
    ) async throws -> MigrationSummary {
        try await migrate(
            from: directory, to: try databaseURL.connectionConfiguration(), target: databaseURL.description,
            prepareSchema: { connection, logger in try await PostgresSchema.migrate(connection, logger: logger) }, progress: progress)
    }
}
