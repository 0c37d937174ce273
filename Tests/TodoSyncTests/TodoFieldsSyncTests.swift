import CloudModel
import Foundation
import Testing
import TodoStore
import TodoSync

/// Issue 27's fields (wait, scheduled, until, start, depends) travel as record fields, merge field by field (depends
/// as a set), and an expired todo goes to the trash once whichever devices expire it: through the real cloud.
@Suite("Todo fields sync") struct TodoFieldsSyncTests {
    @Test func datesTravelAndMergeFieldByField() async throws {
        let cloud = try await TestCloud.start()
        let a = try await cloud.device("A", sendsAutomatically: false)
        let b = try await cloud.device("B", sendsAutomatically: false)
        let key = try await a.engine.add(title: "Plant bulbs").key
        let wait = Date(timeIntervalSince1970: 2_000_000_000)
        let scheduled = Date(timeIntervalSince1970: 2_000_086_400)
        try await a.engine.edit(key, TodoEdit(wait: .some(wait), scheduled: .some(scheduled)))
        await a.engine.sync(.localEdit)
        await b.engine.sync(.manualRefresh)
        let seen = try #require(try await b.store.todo(key))
        #expect(seen.wait == wait && seen.scheduled == scheduled && seen.until == nil && seen.start == nil)

        // Different fields on each side: both kept, no loss.
        let started = Date(timeIntervalSince1970: 1_900_000_000)
        try await a.engine.edit(key, TodoEdit(wait: .some(nil)))
        try await b.engine.edit(key, TodoEdit(start: .some(started)))
        await a.engine.sync(.localEdit)
        await b.engine.sync(.localEdit)
        await a.engine.sync(.manualRefresh)
        for device in [a, b] {
            let item = try #require(try await device.store.todo(key))
            #expect(item.wait == nil && item.start == started && item.scheduled == scheduled, "\(device.name)")
            #expect(try await device.engine.conflicts().isEmpty, "\(device.name)")
        }
        await cloud.shutdown()
    }

    @Test func dependsMergesAsASet() async throws {
        let cloud = try await TestCloud.start()
        let a = try await cloud.device("A", sendsAutomatically: false)
        let b = try await cloud.device("B", sendsAutomatically: false)
        let blocked = try await a.engine.add(title: "Paint the fence").key
        let sand = try await a.engine.add(title: "Sand the fence").key
        let buy = try await a.engine.add(title: "Buy paint").key
        let brush = try await a.engine.add(title: "Clean brushes").key
        var first = TodoEdit()
        first.addDepends = [sand.recordName]
        try await a.engine.edit(blocked, first)
        await a.engine.sync(.localEdit)
        await b.engine.sync(.manualRefresh)
        // A adds one blocker and drops another; B adds a third: every addition stays, the removal holds.
        var onA = TodoEdit()
        onA.addDepends = [buy.recordName]
        onA.removeDepends = [sand.recordName]
        try await a.engine.edit(blocked, onA)
        var onB = TodoEdit()
        onB.addDepends = [brush.recordName]
        try await b.engine.edit(blocked, onB)
        await a.engine.sync(.localEdit)
        await b.engine.sync(.localEdit)
        await a.engine.sync(.manualRefresh)
        for device in [a, b] {
            let item = try #require(try await device.store.todo(blocked))
            #expect(Set(item.depends) == [buy.recordName, brush.recordName], "\(device.name): \(item.depends)")
            #expect(try await device.engine.conflicts().isEmpty, "\(device.name)")
        }
        await cloud.shutdown()
    }

    @Test func anExpiredTodoIsTrashedOnceWhenTwoDevicesExpireItAtOnce() async throws {
        let cloud = try await TestCloud.start()
        let a = try await cloud.device("A", sendsAutomatically: false)
        let b = try await cloud.device("B", sendsAutomatically: false)
        let key = try await a.engine.add(title: "Return the library book").key
        let kept = try await a.engine.add(title: "Not yet").key
        try await a.engine.edit(key, TodoEdit(until: .some(Date(timeIntervalSinceNow: -60))))
        try await a.engine.edit(kept, TodoEdit(until: .some(Date(timeIntervalSinceNow: 86_400))))
        await a.engine.sync(.localEdit)  // sends the until, then expires it here (queued, not sent)
        await b.engine.sync(.manualRefresh)  // fetches it open, expires it there too
        #expect(try await a.store.todo(key)?.isTrashed == true)
        #expect(try await b.store.todo(key)?.isTrashed == true)
        #expect(try await b.engine.expireTodos() == 0, "nothing left to expire")

        // Both send the same trash: the merge takes it with no conflict, and the until is gone everywhere.
        await a.engine.sync(.localEdit)
        await b.engine.sync(.localEdit)
        await a.engine.sync(.manualRefresh)
        for device in [a, b] {
            let item = try #require(try await device.store.todo(key))
            #expect(item.isTrashed && item.until == nil, "\(device.name)")
            #expect(item.lostEdits == nil, "\(device.name): \(item.lostEdits ?? "")")
            #expect(try await device.engine.conflicts().isEmpty, "\(device.name)")
            #expect(try await device.store.todo(kept)?.isTrashed == false, "\(device.name) keeps the one not yet expired")
        }
        // Restored from the trash, it stays: it expired once.
        try await b.engine.untrash(key)
        #expect(try await b.engine.expireTodos() == 0)
        #expect(try await b.store.todo(key)?.isTrashed == false)
        await cloud.shutdown()
    }
}
