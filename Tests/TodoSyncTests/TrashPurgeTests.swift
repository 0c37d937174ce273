import CloudModel
import Foundation
import Testing
import TodoStore
import TodoSync

/// Trashed todos are kept (hidden) while an edit made offline elsewhere may still bring them back, then deleted for
/// good on every device and in the cloud: through the real cloud.
@Suite("Old trash is deleted for good") struct TrashPurgeTests {
    @Test func trashOlderThanTheRetentionIsDeletedEverywhereAndYoungerTrashIsKept() async throws {
        let cloud = try await TestCloud.start()
        let a = try await cloud.device("A", sendsAutomatically: false)
        let b = try await cloud.device("B", sendsAutomatically: false)
        let old = try await a.engine.add(title: "Old milk").key
        let pending = try await a.engine.add(title: "Edited elsewhere").key
        let kept = try await a.engine.add(title: "Still wanted").key
        await a.engine.sync(.localEdit)
        #expect(try await a.engine.trash(old) == .delete)
        #expect(try await a.engine.trash(pending) == .delete)
        await a.engine.sync(.localEdit)
        await b.engine.sync(.manualRefresh)
        #expect(try await b.store.todo(old)?.isTrashed == true)

        // Trash younger than the retention stays; a trashed todo with an edit waiting to be sent stays too.
        #expect(try await a.engine.purgeTrash(olderThan: 3600) == 0)
        try await b.engine.untrash(pending)  // B brings it back; not sent yet
        #expect(try await b.engine.purgeTrash(olderThan: 0) == 1)
        await b.engine.sync(.localEdit)
        await a.engine.sync(.manualRefresh)

        // The old trash is gone from both devices and from the cloud; the others are as they were.
        for device in [a, b] {
            #expect(try await device.store.todo(old) == nil, "\(device.name) deleted it for good")
            #expect(try await device.store.todo(pending)?.isTrashed == false, "\(device.name) kept the todo brought back")
            #expect(try await device.store.todo(kept)?.isTrashed == false)
        }
        let fresh = try await cloud.device("C")
        await fresh.engine.sync(.manualRefresh)
        #expect(try await fresh.store.todo(old) == nil)
        #expect(try await fresh.store.recordCount(in: .private) == 2)
        #expect(try await a.engine.purgeTrash(olderThan: 0) == 0)
        await cloud.shutdown()
    }
}
