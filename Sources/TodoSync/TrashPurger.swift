import CloudModel
import Foundation
import TodoStore

/// A trashed todo is kept (hidden) so that a trash and an edit made elsewhere can be ordered by when they were made;
/// once nobody can still be editing it offline, it is deleted for good so the cloud does not keep it for ever.
/// Confined to the engine's actor.
final class TrashPurger {
    private let store: TodoStore
    private let clock: any SyncClock
    private let retention: Double
    private let time: CloudTime
    private let editor: LocalEditor

    init(store: TodoStore, clock: any SyncClock, retention: Double, time: CloudTime, editor: LocalEditor) {
        self.store = store
        self.clock = clock
        self.retention = retention
        self.time = time
        self.editor = editor
    }

    /// Deletes for good the private and shared todos trashed more than `seconds` ago (by the trash's edit stamp), that
    /// have nothing waiting to be sent and that this device may delete; returns how many were deleted (queued).
    @discardableResult
    nonisolated(nonsending) func purgeTrash(olderThan seconds: Double) async throws -> Int {
        let horizon = time.cloudNow() - Int64(max(0, seconds) * 1000)
        let trashed = try await store.trashedTodos(limit: 10_000)
        let expired = trashed.filter { item in
            guard !item.hasPendingChanges, item.system.isUploaded, editor.canDelete(item) else { return false }
            let trashedAt = FieldStamps(wire: item.editStamps)[TodoItem.Field.isTrashed]?.timestamp
                ?? item.system.modified?.timestamp ?? 0
            return trashedAt < horizon
        }
        guard !expired.isEmpty else { return 0 }
        let keys = expired.map(\.key)
        try await store.applyLocalChanges(saving: [], deleting: keys, at: clock.nowMilliseconds())
        await editor.wrote(keys)
        return keys.count
    }

    /// Purges old trash at most once a day per device, after a pass that reached the cloud.
    nonisolated(nonsending) func purgeIfDue() async {
        let now = clock.nowMilliseconds()
        if let last = try? await store.lastTrashPurge(), last <= now, now - last < 86_400_000 { return }
        guard (try? await purgeTrash(olderThan: retention)) != nil else { return }
        try? await store.setLastTrashPurge(now)
    }
}
