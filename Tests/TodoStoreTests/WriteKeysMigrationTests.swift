import CloudModel
import Foundation
import SQLiteDB
import Testing

@testable import TodoStore

/// Version 10 of the cache: the outbox's one-entry-per-record key leads with the record name, and only records that
/// are not todos are indexed by type. A version-9 cache is upgraded in place with its queue whole.
@Suite("Cache v10: keys of the everyday writes") struct WriteKeysMigrationTests {
    /// Turns the cache at `url` back into version 9's shape: the outbox keyed zone first, every record indexed by type.
    static func makeVersion9(_ url: URL, sequenceHighMark: Int64) throws {
        try SQLiteDatabase.allowBlocking {
            let raw = try SQLiteDatabase(path: url.path)
            try raw.execute(
                """
                BEGIN;
                CREATE TABLE outbox_v9 (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT, scope TEXT NOT NULL, zone_owner TEXT NOT NULL, zone_name TEXT NOT NULL,
                    record_name TEXT NOT NULL, action TEXT NOT NULL CHECK (action IN ('save', 'delete')), record_type TEXT NOT NULL,
                    change_tag TEXT, base_fields TEXT, revision INTEGER NOT NULL DEFAULT 1, failed_reason TEXT,
                    enqueued_at INTEGER NOT NULL, UNIQUE (scope, zone_owner, zone_name, record_name));
                INSERT INTO outbox_v9 SELECT * FROM outbox;
                DROP TABLE outbox;
                ALTER TABLE outbox_v9 RENAME TO outbox;
                UPDATE sqlite_sequence SET seq = \(sequenceHighMark) WHERE name = 'outbox';
                CREATE INDEX outbox_failed ON outbox (seq) WHERE failed_reason IS NOT NULL;
                DROP INDEX records_type;
                CREATE INDEX records_type ON records (record_type);
                PRAGMA user_version = 9;
                COMMIT;
                """)
        }
    }

    /// The SQL that made an index or table of the cache at `url`.
    static func definition(_ name: String, in url: URL) throws -> String {
        try SQLiteDatabase.allowBlocking {
            try SQLiteDatabase(path: url.path, readOnly: true).first("SELECT sql FROM sqlite_master WHERE name = ?1", [.text(name)]) { $0.text(0) } ?? ""
        }
    }

    @Test func aVersion9QueueIsKeptWholeAndNoPositionIsGivenTwice() async throws {
        try await withTemporaryStore { store, url in
            let items = (0..<6).map { TodoItem(key: .privateTodo("p\($0)"), title: "Todo \($0)") }
            try await store.saveLocalEdits(items, at: 1_000)
            var edited = items[2]
            edited.title = "Edited"
            try await store.saveLocalEdit(edited, at: 2_000)
            try await store.markFailed(items[4].key, revision: 1, reason: "refused")
            let list = TodoItem(key: .privateTodo("l1"), recordType: TodoSchema.listType, title: "Garden")
            try await store.saveLocalEdit(list, at: 2_500)
            let before = try await store.pendingChanges(includeFailed: true)
            await store.close()
            // Entries cleared after the last one was queued left the high mark above every position still queued.
            try Self.makeVersion9(url, sequenceHighMark: 40)
            #expect(try Self.definition("outbox", in: url).contains("UNIQUE (scope, zone_owner, zone_name, record_name)"))

            let upgraded = try await TodoStore(url: url)
            #expect(try await upgraded.schemaVersion() == 10 && TodoStore.currentSchemaVersion == 10)
            let after = try await upgraded.pendingChanges(includeFailed: true)
            #expect(after == before)
            #expect(try await upgraded.failedCount() == 1 && after.count == 7)
            // A new entry is placed after the old high mark, never on a position a sent change may still name.
            try await upgraded.saveLocalEdit(TodoItem(key: .privateTodo("new"), title: "New"), at: 3_000)
            let newest = try #require(try await upgraded.pendingChanges().last)
            #expect(newest.key == .privateTodo("new") && newest.sequence == 41)
            // An edit of a queued record still finds its one entry (the upsert's conflict target names the same key).
            edited.title = "Edited again"
            try await upgraded.saveLocalEdit(edited, at: 4_000)
            #expect(try await upgraded.pendingChanges(includeFailed: true).filter { $0.key == edited.key }.map(\.revision) == [3])
            #expect(try await upgraded.listTitles(in: .private, includeTrashed: false) == [list.key: "Garden"])
            #expect(try await upgraded.records(ofType: TodoSchema.listType).map(\.key) == [list.key])
            #expect(try await upgraded.records(ofType: TodoSchema.todoType).count == 7)
            await upgraded.close()
            #expect(try Self.definition("outbox", in: url).contains("UNIQUE (record_name, scope, zone_owner, zone_name)"))
            #expect(try Self.definition("records_type", in: url).contains("WHERE record_type != 'Todo'"))
            #expect(try Self.definition("outbox_failed", in: url).contains("WHERE failed_reason IS NOT NULL"))
        }
    }

    /// The reads by type go through the partial index, and the outbox's lookups by key through its key.
    @Test func readsByTypeAndByKeySeek() async throws {
        try await withTemporaryStore { _, url in
            try SQLiteDatabase.allowBlocking {
                let db = try SQLiteDatabase(path: url.path, readOnly: true)
                func plan(_ sql: String, _ count: Int) throws -> String { try queryPlan(sql, arguments: count, on: db) }
                #expect(try plan(TodoStore.listTitlesSQL, 2).contains("USING INDEX records_type (record_type=? AND scope=?)"))
                #expect(try plan(TodoStore.pendingActionSQL, 4).contains("(record_name=? AND scope=? AND zone_owner=? AND zone_name=?)"))
                #expect(try plan(TodoStore.deleteSentOutboxSQL, 5).contains("(record_name=? AND scope=? AND zone_owner=? AND zone_name=?)"))
            }
        }
    }
}
