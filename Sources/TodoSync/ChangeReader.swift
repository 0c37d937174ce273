import CloudModel
import Foundation
import TodoStore

/// What a row made from a record depends on besides the record: who asks, whether private data shows, how lists
/// are shared.
public struct RowContext: Sendable, Hashable {
    /// Who is asking, for `canUpdate` / `canDelete`.
    public var permissions: PermissionContext
    /// Whether private and shared records are hidden (the engine keeps them on screen, read-only, when signed out).
    public var hidesPrivateData: Bool
    /// The share records the device holds, by the key of the list each shares.
    public var shares: [RecordKey: ShareState]

    /// A context for making rows.
    public init(permissions: PermissionContext, hidesPrivateData: Bool, shares: [RecordKey: ShareState] = [:]) {
        self.permissions = permissions
        self.hidesPrivateData = hidesPrivateData
        self.shares = shares
    }

    /// Whether records of `scope` are shown at all.
    public func shows(_ scope: DatabaseScope) -> Bool { scope == .public || !hidesPrivateData }
}

/// A reader that keeps its own rows and takes changes from the engine instead of whole snapshots.
public struct ChangeReader: Sendable, Hashable {
    let id: UUID
}

/// What changed for a reader since it last took changes, as the reader's own rows.
///
/// A scope read again arrives in chunks: from the take whose `reloadStarted` names it, the reader keeps its rows of
/// that scope on screen and replaces them as rows come; those not replaced by the take whose `reloadFinished` names
/// it are gone. While `hasMore`, the reader should take again at once.
public struct VisibleChanges<Row: Sendable>: Sendable {
    /// Scopes read again from this take on.
    public var reloadStarted: Set<DatabaseScope> = []
    /// Scopes whose reading again ends with this take (often the take that started it).
    public var reloadFinished: Set<DatabaseScope> = []
    /// New and changed rows, and the rows of scopes being read again.
    public var rows: [Row] = []
    /// Records no longer shown (share records among them are no rows; ignore them).
    public var removed: [RecordKey] = []
    /// Whether a scope is still being read again: take again.
    public var hasMore = false
    /// What the rows were made with; give it to `changeReader(current:)` when these rows outlive this engine.
    public var context: RowContext
}

/// A reader's state inside the engine.
struct ReaderState {
    var wakeups: AsyncStream<SyncSnapshot>.Continuation
    /// Records written since the reader last took changes.
    var keys: Set<RecordKey> = []
    /// Of those, the ones this engine wrote as it holds them (local edits): made into rows without reading them again.
    var written: [RecordKey: TodoItem] = [:]
    /// Whether everything must be read again.
    var reloadAll = false
    /// What the reader's rows were made with; nil before its first take.
    var seen: RowContext?
    /// Scopes being read again, the one in progress first, and the last record key read of it.
    var reloading: [DatabaseScope] = []
    var reloadCursor: RecordKey?

    /// Whether reading again will bring `key`'s record (or its absence) in this take or a later one: its scope
    /// waits, or is in progress and the key lies past the last one read (in the store's order: bytes).
    func willRead(_ key: RecordKey) -> Bool {
        guard let index = reloading.firstIndex(of: key.scope) else { return false }
        guard index == 0, let cursor = reloadCursor else { return true }
        let after = [key.zoneOwner, key.zoneName, key.recordName].map { Array($0.utf8) }
        let last = [cursor.zoneOwner, cursor.zoneName, cursor.recordName].map { Array($0.utf8) }
        return last.lexicographicallyPrecedes(after) { $0.lexicographicallyPrecedes($1) }
    }

    /// Reads `scopes` again from their start (a scope already in progress starts over).
    mutating func startReloading(_ scopes: [DatabaseScope]) {
        if let current = reloading.first, scopes.contains(current) { reloadCursor = nil }
        for scope in scopes where !reloading.contains(scope) { reloading.append(scope) }
    }

    /// Notes written records. Past 20,000 (a large refetch) reading everything again costs less than key by key;
    /// below, the reader's rows stay and only the written ones are made again.
    mutating func invalidate<S: Sequence>(_ changed: S) where S.Element == RecordKey {
        guard !reloadAll else { return }
        if written.isEmpty {
            keys.formUnion(changed)
        } else {
            for key in changed {
                keys.insert(key)
                written[key] = nil  // written again since: the copy held is stale
            }
        }
        if keys.count > 20_000 { invalidateAll() }
    }

    /// Notes records this engine wrote, as they are now in the store.
    mutating func wrote(_ items: [TodoItem]) {
        guard !reloadAll else { return }
        for item in items {
            keys.insert(item.key)
            written[item.key] = item
        }
        if keys.count > 20_000 { invalidateAll() }
    }

    mutating func invalidateAll() {
        reloadAll = true
        keys.removeAll()
        written.removeAll()
        reloading.removeAll()
        reloadCursor = nil
    }
}
