import CloudModel
import Foundation
import TodoStore

/// The visible todos `SyncEngine.snapshot()` answers (command-line verbs, tests): read on the first call and then
/// patched key by key. The terminal app never asks, so it never holds them (it is a reader, see `ChangeFeed`).
final class SnapshotCache {
    private let store: TodoStore
    private var visibleTodos: [DatabaseScope: [TodoItem]] = [:]
    /// Keys whose cached copy may be stale.
    private var dirtyKeys: Set<RecordKey> = []
    /// Whether the whole cache must be read again (wipe, zone removal, large changes).
    private var needsFullReload = true

    init(store: TodoStore) { self.store = store }

    /// The visible todos per scope, in the store's order (creation time, then record name).
    var todosByScope: [DatabaseScope: [TodoItem]] { visibleTodos }

    /// Notes that records changed in the store, so their cached copies are read again.
    func invalidate<S: Sequence>(_ keys: S) where S.Element == RecordKey {
        guard !needsFullReload else { return }
        dirtyKeys.formUnion(keys)
        if dirtyKeys.count > 2_000 {
            needsFullReload = true
            dirtyKeys.removeAll()
        }
    }

    /// Notes that anything may have changed.
    func invalidateAll() {
        needsFullReload = true
        dirtyKeys.removeAll()
    }

    /// Brings the cached visible todos up to date: key by key when few changed, else all at once; shared todos get
    /// the permission their share grants `user`.
    nonisolated(nonsending) func refresh(user: String?) async throws {
        if needsFullReload {
            needsFullReload = false
            dirtyKeys.removeAll()
            visibleTodos = [:]  // drop the old copy before reading the new one
            var fresh: [DatabaseScope: [TodoItem]] = [:]
            for scope in DatabaseScope.allCases {
                // The store's order is the display order already; sorting keeps ties identical to patched arrays.
                var items = try await store.todos(in: scope)
                if !items.isEmpty {
                    if !Self.isInDisplayOrder(items) { items.sort(by: Self.displayOrder) }
                    fresh[scope] = items
                }
            }
            visibleTodos = fresh
        } else if !dirtyKeys.isEmpty {
            let keys = dirtyKeys
            dirtyKeys.removeAll()
            var fresh: [DatabaseScope: [TodoItem]] = [:]
            for key in keys {
                if let item = try await store.todo(key), !item.isTrashed { fresh[key.scope, default: []].append(item) }
            }
            for scope in Set(keys.map(\.scope)) {
                var items = visibleTodos.removeValue(forKey: scope) ?? []
                items.removeAll { keys.contains($0.key) }
                items.append(contentsOf: fresh[scope] ?? [])
                items.sort(by: Self.displayOrder)  // nearly sorted: close to linear
                if !items.isEmpty { visibleTodos[scope] = items }
            }
        }
        if var shared = visibleTodos.removeValue(forKey: .shared) {
            SharePermissions.apply(to: &shared, user: user)
            visibleTodos[.shared] = shared
        }
    }

    /// Display order: creation time (else the local edit time), then record name.
    static func displayOrder(_ lhs: TodoItem, _ rhs: TodoItem) -> Bool {
        let l = lhs.system.created?.timestamp ?? lhs.localEditedAt ?? Int64.min
        let r = rhs.system.created?.timestamp ?? rhs.localEditedAt ?? Int64.min
        return l != r ? l < r : lhs.key.recordName < rhs.key.recordName
    }

    /// Whether `items` need no sorting (checked in one pass; a sort would allocate a merge buffer).
    static func isInDisplayOrder(_ items: [TodoItem]) -> Bool {
        var index = items.startIndex
        while index + 1 < items.endIndex {
            if displayOrder(items[index + 1], items[index]) { return false }
            index += 1
        }
        return true
    }
}
