import CloudModel
import Foundation
import TestSupport
import Testing
import TodoStore

/// A page of server changes meets the outbox record by record: each record's own queued action decides, whatever
/// else is queued in the zone or in other zones.
@Suite("A page of changes against the outbox", .onThreadOfItsOwn) struct PendingPageTests {
    private static let other = ZoneKey(scope: .private, zoneName: "Other")

    private func tombstone(_ name: String) -> Record {
        var record = Record(recordName: name, recordType: TodoSchema.todoType, zoneID: ZoneID(zoneName: TodoSchema.zoneName))
        record.deleted = true
        return record
    }

    @Test func eachRecordIsDecidedByItsOwnQueuedAction() async throws {
        try await withTemporaryStore { store, _ in
            let names = ["edited", "deletedHere", "plain", "gone", "edited2"]
            try await store.applyZoneChanges(
                .privateTodos, records: names.map { serverRecord($0, title: "server \($0)") }, token: nil, moreComing: false)
            for name in ["edited", "edited2"] {
                var item = try #require(try await store.todo(.privateTodo(name)))
                item.title = "mine"
                try await store.saveLocalEdit(item, at: 10)
            }
            try await store.deleteLocally(.privateTodo("deletedHere"), at: 11)
            // The same names queued in another zone change nothing here.
            let elsewhere = RecordKey(scope: .private, zoneName: Self.other.zoneName, recordName: "plain")
            try await store.saveLocalEdit(TodoItem(key: elsewhere, title: "other zone"), at: 12)
            // Many unrelated changes queued in the zone: the page's records are not among them.
            for index in 0..<300 { try await store.saveLocalEdit(TodoItem(key: .privateTodo("queued\(index)"), title: "q"), at: 13) }

            let summary = try await store.applyZoneChanges(
                .privateTodos,
                records: [
                    serverRecord("edited", title: "theirs", tag: "t2"), tombstone("edited2"), tombstone("deletedHere"),
                    serverRecord("plain", title: "theirs", tag: "t2"), tombstone("gone"), serverRecord("new", title: "arrived"),
                ],
                token: nil, moreComing: false)

            #expect(summary.keptForPendingEdit == 2)  // the edit kept, the tombstone of the edited one a re-create
            #expect(summary.saved == 2)  // plain, new
            #expect(summary.deleted == 2)  // the delete queued here is done; gone is removed
            #expect(try await store.todo(.privateTodo("edited"))?.title == "mine")
            #expect(try await store.todo(.privateTodo("edited2"))?.title == "mine")
            #expect(try await store.todo(.privateTodo("plain"))?.title == "theirs")
            #expect(try await store.todo(.privateTodo("new"))?.title == "arrived")
            #expect(try await store.todo(.privateTodo("gone")) == nil)
            let queued = Set(try await store.pendingChanges().map(\.key))
            #expect(!queued.contains(.privateTodo("deletedHere")))
            #expect(queued.contains(.privateTodo("edited")) && queued.contains(.privateTodo("edited2")) && queued.contains(elsewhere))
            #expect(queued.count == 303)
        }
    }

    @Test func anEmptyOutboxLeavesEveryRecordToTheServer() async throws {
        try await withTemporaryStore { store, _ in
            let summary = try await store.applyZoneChanges(
                .privateTodos, records: [serverRecord("a", title: "A"), tombstone("b")], token: nil, moreComing: false)
            #expect(summary.saved == 1 && summary.deleted == 0 && summary.keptForPendingEdit == 0)
            #expect(try await store.todo(.privateTodo("a"))?.title == "A")
        }
    }
}
