import CloudClient
import CloudModel
import Foundation
import TestSupport
import Testing
import TodoStore
import TodoSync

/// A change committed to the cache, then a full disk before the device could record what became of it: the change is
/// reported kept (never lost), it reaches the cloud once, and the retry once there is room makes no second copy. The
/// cache is a real SQLite file on a small tmpfs filled to the last byte; needs `mount` (root), skipped otherwise.
@Suite("A committed change, then a full disk", .serialized)
struct CommittedThenDiskFullTests {
    @Test func aCommittedChangeIsKeptSentOnceAndNotDuplicatedByTheRetry() async throws {
        let cloud = try await TestCloud.start()
        defer { Task { await cloud.shutdown() } }
        let disk = ScratchDirectory.make("small-disk")
        guard SmallDisk.mount(megabytes: 4, on: disk) else {
            print("CommittedThenDiskFullTests skipped: mounting a tmpfs is not permitted here")
            return
        }
        defer {
            SmallDisk.unmount(disk)
        }
        let device = try await cloud.device("small", sendsAutomatically: false, storeDirectory: disk)
        let other = try await cloud.device("other", sendsAutomatically: false)
        await device.engine.sync(.manualRefresh)

        // Committed while the cloud is out of reach, so nothing is recorded about it after the commit.
        device.transport.isOffline = true
        let kept = try await device.engine.add(title: "Kept on a full disk")
        device.transport.isOffline = false
        let filler = SmallDisk.fill(disk)
        await #expect(throws: StoreError.self, "the disk refuses every write now") { _ = try await device.engine.add(title: "Refused") }

        // The send: the cloud takes the todo; recording its answer in the cache fails on the full disk.
        await device.engine.sync(.localEdit)
        let status = await device.engine.status()
        let error = status.lastError ?? ""
        #expect(error.hasPrefix(StoreError.storagePrefix) && error.contains("full"), "said in words: \(error)")
        #expect(!error.contains("not saved") && !error.contains("lost"), "\(error)")
        #expect(try await device.store.todo(kept.key)?.title == "Kept on a full disk", "the change is kept in the cache")
        #expect(try await device.store.todos(in: .private).map(\.title) == ["Kept on a full disk"], "the refused add left nothing")

        await other.engine.sync(.manualRefresh)
        #expect(try await other.titles() == ["Kept on a full disk"], "the cloud took it before the disk refused the answer")

        // Room again: the retry confirms the todo the cloud has instead of making a second one.
        try FileManager.default.removeItem(at: filler)
        await device.engine.sync(.localEdit)
        await device.engine.sync(.manualRefresh)
        let after = await device.engine.status().lastError
        #expect(after == nil, "\(after ?? "")")
        #expect(try await device.store.pendingCount() == 0)
        #expect(try await device.store.todos(in: .private).map(\.title) == ["Kept on a full disk"])
        await other.engine.sync(.manualRefresh)
        #expect(try await other.titles() == ["Kept on a full disk"], "still exactly one copy in the cloud")
    }
}
