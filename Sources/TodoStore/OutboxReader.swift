import Foundation
import SQLiteDB

/// A read-only connection of its own to a cache file, for reading the outbox beside the store's own work.
///
/// Sending a large outbox reads the next entries while the answers to the last ones are committed: on the store's one
/// connection the two take turns; here the reading runs on another thread. It sees what was committed when each
/// read begins (SQLite's WAL gives every reader its snapshot), as the store's connection would between commits.
public actor OutboxReader {
    private var database: SQLiteDatabase?

    /// A reader of the cache at `path` (a WAL database, open in a `TodoStore`).
    init(path: String) throws {
        database = try TodoStore.mapErrors { try SQLiteDatabase(path: path, readOnly: true) }
    }

    /// As `TodoStore.pendingChanges(limit:includeFailed:after:)`.
    public func pendingChanges(limit: Int = Int.max, includeFailed: Bool = false, after sequence: Int64? = nil) throws -> [PendingChange] {
        guard let database else { throw StoreError.closed }
        return try TodoStore.pendingChanges(limit: limit, includeFailed: includeFailed, after: sequence, db: database)
    }

    /// Closes the connection; later reads throw `StoreError.closed`.
    public func close() { database = nil }
}

extension TodoStore {
    /// A reader of this cache's outbox on a connection of its own; nil for an in-memory cache, which has no file
    /// another connection could open.
    public nonisolated func outboxReader() throws -> OutboxReader? {
        counters.outboxReaderOpened()
        return path == ":memory:" ? nil : try OutboxReader(path: path)
    }
}
