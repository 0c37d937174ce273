import CloudModel
import Foundation
import Testing
import TodoPlanning
@testable import TodoStore

/// `addLocalRecords` (an import's bulk write): every record stored as given, queued in the order given, progress at
/// each step, and all or nothing.
@Suite("Adding many records")
struct BulkAddTests {
    /// A todo with most fields set, different for each `index`.
    static func item(_ index: Int) -> TodoItem {
        var item = TodoItem(key: .privateTodo("bulk-\(1000 + index)"), title: "todo \(index)", notes: index % 3 == 0 ? "n\(index)" : "")
        item.priority = index % 4
        item.isCompleted = index % 5 == 0
        item.tags = index % 2 == 0 ? ["home", "t\(index % 7)"] : []
        item.due = index % 3 == 1 ? DueDate(Date(timeIntervalSince1970: Double(1_780_000_000 + 86_400 * index)), allDay: index % 2 == 0) : nil
        item.repeatRule = index % 11 == 0 ? "FREQ=WEEKLY" : nil
        item.editStamps = "*=\(index),0,dev"
        return item
    }

    @Test(arguments: [1, 15, 16, 17, 32, 33, 37, 100, 1_000 + 23])
    func everyRecordIsStoredAndQueuedInOrder(_ count: Int) async throws {
        try await withTemporaryStore { store, _ in
            let items = (0..<count).map(Self.item)
            let steps = Steps()
            try await store.addLocalRecords(items, at: 42, progressEvery: 10) { steps.add($0) }
            let stored = try await store.mapTodos(keys: items.map(\.key)) { $0 }.values
            #expect(stored.count == count)
            let byKey = Dictionary(uniqueKeysWithValues: stored.map { ($0.key, $0) })
            for item in items {
                var expected = item
                expected.localEditedAt = 42
                expected.hasPendingChanges = true
                #expect(byKey[item.key] == expected, "\(item.key.recordName)")
            }
            let queued = try await store.pendingChanges().map(\.key)
            #expect(queued == items.map(\.key), "queued in the order given")
            let told = steps.all
            #expect(told == Array(stride(from: 10, through: count, by: 10)) + [count])
        }
    }

    /// An import from `wideBulkFrom` records on writes 32 a statement: every record stored and queued in order there
    /// too (checked on every 997th record and the last 40, to keep the test short).
    @Test func aLargeImportWritesItsWideStatementsInOrder() async throws {
        #expect(TodoStore.bulkStatements(writing: TodoStore.wideBulkFrom - 1).rows == 16 && TodoStore.bulkStatements(writing: TodoStore.wideBulkFrom).rows == 32)
        let count = TodoStore.wideBulkFrom + 33
        try await withTemporaryStore { store, _ in
            let items = (0..<count).map(Self.item)
            let sequences = try await store.addLocalRecords(items, at: 42)
            #expect(sequences == Array(1...Int64(count)))
            let queued = try await store.pendingChanges().map(\.key)
            #expect(queued == items.map(\.key), "queued in the order given")
            let sampled = Array(stride(from: 0, to: count, by: 997)) + Array(count - 40..<count)
            let read = try await store.mapTodos(keys: sampled.map { items[$0].key }) { $0 }.values
            let stored = Dictionary(uniqueKeysWithValues: read.map { ($0.key, $0) })
            for index in sampled {
                var expected = items[index]
                expected.localEditedAt = 42
                expected.hasPendingChanges = true
                #expect(stored[expected.key] == expected, "\(expected.key.recordName)")
            }
        }
    }

    @Test func aRecordThatCannotBeQueuedLeavesNoneOfThem() async throws {
        try await withTemporaryStore { store, _ in
            var items = (0..<40).map(Self.item)
            items[33] = TodoItem(key: items[2].key, title: "the same name twice")  // the outbox holds one entry a record
            await #expect(throws: (any Error).self) { try await store.addLocalRecords(items, at: 1) }
            let queued = try await store.pendingChanges()
            let stored = try await store.mapTodos(keys: items.map(\.key)) { $0 }.values
            #expect(queued.isEmpty && stored.isEmpty)
        }
    }
}

/// Progress steps heard from inside the store's transaction.
private final class Steps: @unchecked Sendable {
    private let lock = NSLock()
    private var steps: [Int] = []
    func add(_ step: Int) { lock.withLock { steps.append(step) } }
    var all: [Int] { lock.withLock { steps } }
}
