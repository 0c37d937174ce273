import CloudModel
import Foundation
import Testing
import TodoStore

/// The outbox read on a connection of its own (while the store's commits answers) sees what the store committed.
@Suite("Outbox reader") struct OutboxReaderTests {
    @Test func itReadsWhatTheStoreHasCommittedAtEachRead() async throws {
        try await withTemporaryStore { store, _ in
            try await store.addLocalRecords((0..<5).map { TodoItem(key: .privateTodo("r\($0)"), title: "t\($0)") }, at: 1)
            let reader = try #require(try store.outboxReader())
            let all = try await reader.pendingChanges()
            #expect(all == (try await store.pendingChanges()))
            let firstTwo = try await reader.pendingChanges(limit: 2)
            #expect(firstTwo.map(\.key.recordName) == ["r0", "r1"])
            // The store confirms the first two and queues an edit: the next read sees both.
            try await store.confirm(firstTwo.map { SentChange($0, result: .saved(serverRecord($0.key.recordName, title: ""))) })
            try await store.saveLocalEdit(TodoItem(key: .privateTodo("late"), title: "late"), at: 2)
            let rest = try await reader.pendingChanges(after: firstTwo.last?.sequence)
            #expect(rest.map(\.key.recordName) == ["r2", "r3", "r4", "late"])
            #expect(try await reader.pendingChanges().count == 4)
            await reader.close()
            await #expect(throws: StoreError.closed) { try await reader.pendingChanges() }
        }
    }

    @Test func anInMemoryCacheHasNone() async throws {
        let store = try await TodoStore(path: ":memory:")
        #expect(try store.outboxReader() == nil)
    }
}
