import SQLiteDB

extension TodoStore {
    /// SQLite's `data_version` of this connection: it changes when another connection (another process) commits to
    /// the cache file, never for this connection's own commits.
    public func dataVersion() throws -> Int64 {
        try read { db in try db.first("PRAGMA data_version") { $0.int(0) } ?? 0 }
    }
}
