import CloudModel
import Foundation
import Testing
import TodoPlanning
import TodoStore

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

    @Test(arguments: [1, 15, 16, 17, 37, 100, 1_000 + 23])
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
