import CloudModel
import Foundation
import SQLiteDB

extension TodoStore {
    /// Trashed todos of the private and shared databases (the public board keeps its trashed posts: it cannot
    /// delete), at most `limit`, for deleting for good once they are old enough.
    public func trashedTodos(limit: Int) throws -> [TodoItem] {
        try read { db in
            var items: [TodoItem] = []
            _ = try db.query(
                Self.trashedTodosSQL,
                [.text(DatabaseScope.public.rawValue), .text(TodoSchema.todoType), .int(Int64(max(0, limit)))]
            ) { row in items.append(try Self.item(from: row)) }
            return items
        }
    }

    /// `trashedTodos(limit:)`'s query: the trashed rows through their own index (`+record_type` keeps SQLite off the
    /// record-type index, through which it read every todo and then each by key again).
    static let trashedTodosSQL = """
        SELECT \(recordColumns) FROM records INDEXED BY records_trashed WHERE is_trashed = 1 AND scope != ?1 AND +record_type = ?2
        LIMIT ?3
        """

    /// Private and shared todos not in the trash whose `until` is at `milliseconds` or before, found by index.
    ///
    /// `+record_type` keeps SQLite off the record-type index, which it otherwise chose (no statistics): every todo
    /// was read after each pass that reached the cloud (10 ms at 10,000 todos) instead of the few with an `until`.
    public func expiredTodos(at milliseconds: Int64, limit: Int) throws -> [TodoItem] {
        try read { db in
            var items: [TodoItem] = []
            _ = try db.query(
                """
                SELECT \(Self.recordColumns) FROM records WHERE until_at IS NOT NULL AND is_trashed = 0 AND until_at <= ?1
                AND scope != ?2 AND +record_type = ?3 LIMIT ?4
                """,
                [.int(milliseconds), .text(DatabaseScope.public.rawValue), .text(TodoSchema.todoType), .int(Int64(max(0, limit)))]
            ) { row in items.append(try Self.item(from: row)) }
            return items
        }
    }

    /// When this device last looked for trash old enough to delete for good (ms), nil if never.
    public func lastTrashPurge() throws -> Int64? {
        try read { db in try db.first("SELECT value FROM sync_state WHERE key = ?1", [.text(SyncStateKey.lastTrashPurge)]) { $0.text(0) } }
            .flatMap { Int64($0) }
    }

    /// Notes when this device last looked for old trash.
    public func setLastTrashPurge(_ time: Int64) throws {
        try write { db in try Self.setState(SyncStateKey.lastTrashPurge, String(time), db: db) }
    }
}
