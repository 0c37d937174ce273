import CloudModel
import Foundation
import TodoStore

/// A trashed todo is kept (hidden) so that a trash and an edit made elsewhere can be ordered by when they were made;
/// once nobody can still be editing it offline, it is deleted for good so the cloud does not keep it for ever.
extension SyncEngine {
    /// Deletes for good the private and shared todos trashed more than `seconds` ago (by the trash's edit stamp), that
    /// have nothing waiting to be sent and that this device may delete; returns how many were deleted (queued).
    @discardableResult
    public func purgeTrash(olderThan seconds: Double) async throws -> Int {
        let horizon = cloudNow() - Int64(max(0, seconds) * 1000)
        let trashed = try await store.trashedTodos(limit: 10_000)
        let expired = trashed.filter { item in
            guard !item.hasPendingChanges, item.system.isUploaded, canDelete(item) else { return false }
            let trashedAt = FieldStamps(wire: item.editStamps)[TodoItem.Field.isTrashed]?.timestamp
                ?? item.system.modified?.timestamp ?? 0
            return trashedAt < horizon
        }
        guard !expired.isEmpty else { return 0 }
        let keys = expired.map(\.key)
        try await store.applyLocalChanges(saving: [], deleting: keys, at: clock.nowMilliseconds())
        await afterLocalEdits(keys)
        return keys.count
    }

    /// Purges old trash at most once a day per device, after a pass that reached the cloud.
    func purgeTrashIfDue() async {
        let now = clock.nowMilliseconds()
        if let last = try? await store.lastTrashPurge(), last <= now, now - last < 86_400_000 { return }
        guard (try? await purgeTrash(olderThan: configuration.trashRetention)) != nil else { return }
        try? await store.setLastTrashPurge(now)
    }
}
