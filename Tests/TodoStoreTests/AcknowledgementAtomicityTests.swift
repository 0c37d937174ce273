import CloudModel
import Foundation
import Testing
import TodoStore

/// A group of acknowledgements (the answers to several requests, committed together) is one transaction: when the
/// cache cannot take all of it, none of it is applied, and every change stays queued to be sent again.
@Suite("Acknowledgements commit all or nothing")
struct AcknowledgementAtomicityTests {
    /// The cloud's answer for a sent save: system fields only, with a change tag long enough to grow each row.
    private func answer(_ change: PendingChange) -> SentChange {
        var record = serverRecord(
            change.key.recordName, title: "", tag: String(repeating: "t", count: 200) + change.key.recordName, modifiedAt: 9_000)
        record.fields = [:]
        return SentChange(change, result: .saved(record))
    }

    @Test func aGroupTheDiskCannotHoldLeavesEveryChangeQueued() async throws {
        try await withTemporaryStore { store, _ in
            let names = (0..<600).map { String(format: "group-%04d", $0) }
            try await store.addLocalRecords(names.map { TodoItem(key: .privateTodo($0), title: "sent \($0)") }, at: 1)
            let sent = try await store.pendingChanges()
            let answers = sent.map(answer)
            let batches = [Array(answers[..<200]), Array(answers[200..<400]), Array(answers[400...])]
            // No page to spare: the change tags the answers bring need new pages partway through the group.
            try await store.limitFileSizeForTesting(pages: 0)
            await #expect(throws: StoreError.self) { try await store.confirm(batches: batches) }
            #expect(try await store.pendingCount() == names.count)
            for name in [names[0], names[299], names[599]] {
                let item = try #require(try await store.todo(.privateTodo(name)))
                #expect(item.system.changeTag == nil && item.hasPendingChanges)
            }
            // With room again, the same group commits whole.
            try await store.limitFileSizeForTesting(pages: 100_000)
            try await store.confirm(batches: batches)
            #expect(try await store.pendingCount() == 0)
            #expect(try await store.todo(.privateTodo(names[599]))?.system.changeTag == String(repeating: "t", count: 200) + names[599])
        }
    }
}
