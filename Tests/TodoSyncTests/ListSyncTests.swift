import CloudClient
import CloudModel
import Foundation
import TestSupport
import Testing
import TodoStore
import TodoSync

/// Lists (`TodoList` records, todos parented to them) through the real cloud.
@Suite("Lists through the real cloud", .serialized) struct ListSyncTests {
    @Test func listsTodosMovesAndListDeletionReachTheOtherDevice() async throws {
        let cloud = try await TestCloud.start()
        let a = try await cloud.device("A")
        let b = try await cloud.device("B", listen: true)

        let groceries = try await a.engine.addList(title: "Groceries")
        let work = try await a.engine.addList(title: "Work")
        let milk = try await a.engine.add(title: "Milk", toList: groceries.key)
        let eggs = try await a.engine.add(title: "Eggs", toList: groceries.key)
        let loose = try await a.engine.add(title: "Loose")
        await a.engine.waitUntilIdle()
        #expect(try await a.store.pendingCount() == 0)

        // The parent reference is what the cloud keeps (and what sharing follows); the list field mirrors it.
        let lookup = try await a.client.lookupRecords(
            .private, LookupRecordsRequest(recordNames: [milk.key.recordName], zoneID: ZoneID(zoneName: TodoSchema.zoneName)))
        #expect(lookup.first?.record?.parent?.recordName == groceries.key.recordName)

        #expect(try await eventually { try await b.engine.lists().map(\.title).sorted() == ["Groceries", "Work"] })
        #expect(try await eventually { try await b.engine.todos(inList: groceries.key).map(\.title).sorted() == ["Eggs", "Milk"] })

        // Move within the zone: re-parented, same record.
        let moved = try await a.engine.move(loose.key, toList: work.key)
        #expect(moved.key == loose.key)
        await a.engine.waitUntilIdle()
        #expect(try await eventually { try await b.store.todo(loose.key)?.listName == work.key.recordName })

        // Out of any list again.
        try await a.engine.move(loose.key, toList: nil)
        await a.engine.waitUntilIdle()
        #expect(try await eventually { try await b.store.todo(loose.key).map { $0.listName == nil && $0.parent == nil } == true })

        // Deleting a list takes its todos, in one local transaction, and the tombstones propagate.
        #expect(try await a.engine.deleteList(groceries.key) == 2)
        #expect(try await a.store.todo(milk.key) == nil)
        #expect(try await a.store.todo(eggs.key) == nil)
        await a.engine.waitUntilIdle()
        #expect(try await eventually { try await b.store.todo(groceries.key) == nil })
        #expect(try await b.store.todo(milk.key) == nil)
        #expect(try await b.store.todo(eggs.key) == nil)
        #expect(try await b.store.todo(loose.key) != nil)

        await a.engine.stop()
        await b.engine.stop()
        await cloud.shutdown()
    }

    @Test func concurrentMoveAndEditMergeFieldByField() async throws {
        let cloud = try await TestCloud.start()
        let a = try await cloud.device("A")
        let b = try await cloud.device("B")
        let home = try await a.engine.addList(title: "Home")
        let todo = try await a.engine.add(title: "Paint the fence")
        await a.engine.waitUntilIdle()
        await b.engine.sync(.manualRefresh)
        #expect(try await b.store.todo(todo.key) != nil)

        // B moves it into a list while offline from A's point of view; A renames it. Both edits survive.
        await b.engine.sync(.manualRefresh)
        try await b.engine.move(todo.key, toList: home.key)
        try await a.engine.edit(todo.key, TodoEdit(title: "Paint the whole fence"))
        await a.engine.waitUntilIdle()
        await b.engine.waitUntilIdle()
        await a.engine.sync(.manualRefresh)
        await b.engine.sync(.manualRefresh)

        for device in [a, b] {
            let item = try #require(try await device.store.todo(todo.key))
            #expect(item.title == "Paint the whole fence")
            #expect(item.listName == home.key.recordName)
            #expect(item.parent?.recordName == home.key.recordName)
        }
        await cloud.shutdown()
    }

    @Test func signedOutAndPublicListsAreRefused() async throws {
        let cloud = try await TestCloud.start()
        let a = try await cloud.device("A")
        let list = try await a.engine.addList(title: "Errands")
        let post = try await a.engine.add(title: "Public post", to: .public)
        await #expect(throws: SyncEngineError.self) { try await a.engine.move(post.key, toList: list.key) }
        await a.engine.signedOut("test")
        await #expect(throws: SyncEngineError.self) { try await a.engine.addList(title: "Nope") }
        await #expect(throws: SyncEngineError.self) { try await a.engine.add(title: "Nope", toList: list.key) }
        await cloud.shutdown()
    }
}
