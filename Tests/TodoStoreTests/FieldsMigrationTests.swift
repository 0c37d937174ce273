import CloudModel
import Foundation
import SQLiteDB
import Testing
import TodoStore

/// A cache of the version before issue 27's fields is upgraded in place: the new columns and the history table are
/// added, and values a newer device synced into it (kept then as unknown fields) are read as the fields they are.
@Suite("Issue 27 fields: cache migration") struct FieldsMigrationTests {
    @Test func aVersion5CacheKeepsWhatANewerDeviceSynced() async throws {
        try await withTemporaryStore { store, url in
            try await store.applyZoneChanges(.privateTodos, records: [serverRecord("a", title: "Repot")], token: ChangeToken(rawValue: "z1"), moreComing: false)
            await store.close()
            let wait: Int64 = 1_900_000_000_000
            let kept = String(
                decoding: try JSONEncoder().encode(["wait": FieldValue.timestamp(wait), "depends": .list(.string, [.string("b")])]), as: UTF8.self)
            try SQLiteDatabase.allowBlocking {
                let raw = try SQLiteDatabase(path: url.path)
                try raw.execute(
                    """
                    DROP INDEX records_trashed; DROP INDEX records_open_due; DROP INDEX records_depends; DROP INDEX records_extra;
                    DROP TABLE history; DROP INDEX records_until; ALTER TABLE records DROP COLUMN wait_at;
                    ALTER TABLE records DROP COLUMN scheduled_at; ALTER TABLE records DROP COLUMN until_at;
                    ALTER TABLE records DROP COLUMN start_at; ALTER TABLE records DROP COLUMN depends; PRAGMA user_version = 5;
                    """)
                try raw.run("UPDATE records SET extra_fields = ?1", [.text(kept)])
            }
            let upgraded = try await TodoStore(url: url)
            #expect(try await upgraded.schemaVersion() == TodoStore.currentSchemaVersion)
            let item = try #require(try await upgraded.todo(.privateTodo("a")))
            #expect(item.wait == Date(timeIntervalSince1970: Double(wait) / 1000) && item.depends == ["b"] && item.extraFields.isEmpty)
            #expect(try await upgraded.history(of: .privateTodo("a")).isEmpty)
            #expect(try await upgraded.expiredTodos(at: .max, limit: 10).isEmpty)
            await upgraded.close()
        }
    }
}
