import CloudModel
import Foundation
import TodoStore

/// Moves todos past their `until` to the trash, on whichever device syncs first. Confined to the engine's actor.
///
/// The expiry is an edit like any other: `isTrashed = 1` and `until` cleared, stamped. Two devices expiring the same
/// todo at once write the same values, which the field-by-field merge takes without a conflict or a lost edit; and
/// with `until` gone, a todo restored from the trash stays restored (it expires once).
final class UntilExpiry {
    private let store: TodoStore
    private let clock: any SyncClock
    private let time: CloudTime
    private let editor: LocalEditor

    init(store: TodoStore, clock: any SyncClock, time: CloudTime, editor: LocalEditor) {
        self.store = store
        self.clock = clock
        self.time = time
        self.editor = editor
    }

    /// Trashes the todos whose `until` has passed that this device may edit; returns how many it trashed.
    @discardableResult
    nonisolated(nonsending) func expire() async throws -> Int {
        let now = clock.nowMilliseconds()
        var saved: [TodoItem] = []
        for item in try await store.expiredTodos(at: now, limit: 1000) where editor.canUpdate(item) {
            var expired = item
            expired.isTrashed = true
            expired.until = nil
            saved.append(try await store.saveLocalEdit(time.stamped(expired, from: item), at: now))
        }
        if !saved.isEmpty { await editor.wrote(saved: saved) }
        return saved.count
    }
}
