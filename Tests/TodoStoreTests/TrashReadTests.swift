import CloudModel
import Foundation
import TestSupport
import Testing
import TodoStore

/// What the daily purge reads: trashed todos of the private and shared databases, through the trash's own index.
@Suite("Reading the trash", .onThreadOfItsOwn) struct TrashReadTests {
    @Test func onlyTrashedTodosOutsideThePublicBoardAreRead() async throws {
        try await withTemporaryStore { store, _ in
            let trashed: [String: FieldValue] = ["isTrashed": .int64(1)]
            var list = serverRecord("trashedList", title: "L", extra: trashed)
            list.recordType = TodoSchema.listType
            try await store.applyZoneChanges(
                .privateTodos,
                records: [
                    serverRecord("open", title: "O"), serverRecord("bin1", title: "B", extra: trashed),
                    serverRecord("bin2", title: "B", extra: trashed), list,
                ],
                token: nil, moreComing: false)
            var post = serverRecord("post", title: "P", extra: trashed)
            post.zoneID = ZoneID(zoneName: ZoneID.defaultZoneName)
            try await store.applyPublicRecords([post], pollMark: nil)
            #expect(try await store.todo(.publicRecord("post"))?.isTrashed == true)

            #expect(Set(try await store.trashedTodos(limit: 10).map(\.key.recordName)) == ["bin1", "bin2"])
            #expect(try await store.trashedTodos(limit: 1).count == 1)
            #expect(try await store.trashedTodos(limit: 0).isEmpty)
        }
    }
}
