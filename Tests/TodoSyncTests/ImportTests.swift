import CloudModel
import Foundation
import Testing
import TodoPlanning
import TodoStore
import TodoSync

/// Many todos added at once (`todo import`): one transaction, every todo queued, sent like any edit.
@Suite("Adding many todos at once", .serialized) struct ImportTests {
    static func todos(_ count: Int) -> [NewTodo] {
        (0..<count).map { index in
            NewTodo(
                title: "Imported \(index)", notes: index % 2 == 0 ? "note \(index)" : "",
                due: index % 4 == 0 ? DueDate(Date(timeIntervalSince1970: 1_790_000_000), allDay: true) : nil, priority: index % 5 - 1,
                isCompleted: index % 3 == 0)
        }
    }

    /// The values a progress callback heard.
    final class Heard: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [Int] = []
        func append(_ value: Int) { lock.withLock { values.append(value) } }
        var all: [Int] { lock.withLock { values } }
    }

    @Test func everyTodoIsStoredQueuedAndReachesAnotherDevice() async throws {
        let cloud = try await TestCloud.start()
        let a = try await cloud.device("A", sendsAutomatically: false)
        let todos = Self.todos(2_500)
        let heard = Heard()
        let keys = try await a.engine.addTodos(todos) { heard.append($0) }

        #expect(keys.count == 2_500 && Set(keys).count == 2_500, "one fresh record per todo")
        let names = keys.map(\.recordName)
        #expect(names == names.sorted(), "names ascend in the order given (the cache's B-trees are filled in order)")
        #expect(names.allSatisfy { UUID(uuidString: $0) != nil && $0 == $0.lowercased() && Array($0)[14] == "7" }, "time-ordered UUIDs")
        #expect(Set(names.map { RecordNames.shortID($0) }).count > 2_490, "short IDs as distinct as random ones")
        #expect(try await a.store.pendingCount() == 2_500)
        #expect(heard.all.last == 2_500 && heard.all == heard.all.sorted() && heard.all.count >= 3, "progress as it goes")
        let third = try #require(try await a.store.todo(keys[3]))
        #expect(third.title == "Imported 3" && third.notes == "" && third.isCompleted && third.priority == 2)
        #expect(third.hasPendingChanges && third.system.changeTag == nil)
        #expect(FieldStamps(wire: third.editStamps)[TodoItem.Field.title] != nil, "stamped like a todo added by hand")
        let clamped = try #require(try await a.store.todo(keys[0]))
        #expect(clamped.priority == 0 && clamped.dueDate == DueDate(Date(timeIntervalSince1970: 1_790_000_000), allDay: true).date)
        #expect(await a.engine.status().pendingCount == 2_500, "the counts are shown at once")

        await a.engine.sync(.localEdit)
        #expect(try await a.store.pendingCount() == 0)
        let b = try await cloud.device("B")
        let received = try await b.store.todos(in: .private)
        #expect(received.count == 2_500)
        #expect(Set(received.map(\.title)) == Set(todos.map(\.title)))
        #expect(received.filter(\.isCompleted).count == todos.filter(\.isCompleted).count)
        await cloud.shutdown()
    }

    @Test func aFullDiskAddsNoneOfThem() async throws {
        let cloud = try await TestCloud.start()
        let a = try await cloud.device("A", sendsAutomatically: false)
        try await a.store.limitFileSizeForTesting(pages: 8)
        await #expect(throws: StoreError.self) { try await a.engine.addTodos(Self.todos(5_000)) }
        #expect(try await a.store.recordCount() == 0, "all or none")
        #expect(try await a.store.pendingCount() == 0)
        await cloud.shutdown()
    }

    @Test func signedOutRefusesWithTheReason() async throws {
        let cloud = try await TestCloud.start()
        let a = try await cloud.device("A", sendsAutomatically: false)
        await a.engine.signedOut("signed out")
        await #expect(throws: SyncEngineError.self) { try await a.engine.addTodos(Self.todos(3)) }
        #expect(try await a.store.recordCount() == 0)
        await cloud.shutdown()
    }
}
