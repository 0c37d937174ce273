import CloudModel
import Foundation
import TodoPlanning
import TodoStore

/// Imports: many todos stored and queued in one transaction (all or none), records the device holds already replaced
/// as edits. Confined to the engine's actor.
final class TodoImporter {
    private let store: TodoStore
    private let clock: any SyncClock
    private let status: EngineStatus
    private let feed: ChangeFeed
    private let time: CloudTime
    private let scheduler: PassScheduler
    private let outbox: OutboxSender

    init(
        store: TodoStore, clock: any SyncClock, status: EngineStatus, feed: ChangeFeed, time: CloudTime, scheduler: PassScheduler,
        outbox: OutboxSender
    ) {
        self.store = store
        self.clock = clock
        self.status = status
        self.feed = feed
        self.time = time
        self.scheduler = scheduler
        self.outbox = outbox
    }

    /// `addTodos`, answering also how many were added, updated and unchanged. A todo the file completes that was an
    /// open occurrence here makes its next occurrence (as `todo done` does) unless the file or the cache holds it.
    nonisolated(nonsending) func importTodos(
        _ todos: [NewTodo], progress: (@Sendable (Int) -> Void)? = nil
    ) async throws -> (keys: [RecordKey], counts: ImportCounts) {
        guard status.permissionContext.isSignedIn else { throw SyncEngineError.refused("signed out: sign in to add todos") }
        guard !todos.isEmpty else { return ([], ImportCounts()) }
        var items: [TodoItem] = []
        items.reserveCapacity(todos.count)
        let lists = try await listsFor(todos)
        var named = Set<String>()
        var prepared: [(item: TodoItem, given: Bool)] = []
        prepared.reserveCapacity(todos.count)
        for (todo, fresh) in zip(todos, RecordNames.ascending(todos.count)) {
            var name = fresh
            if let given = todo.recordName, NewTodo.isUsableName(given), named.insert(given).inserted { name = given }
            var item = todo.item(.privateTodo(name))
            if let list = todo.listName { item.setList(lists.names[list]) }
            prepared.append((item, name != fresh))
        }
        // Imported again (a round trip): the file's values replace those records', as an edit; one read finds them.
        let existing = Dictionary(
            try await store.mapTodos(keys: prepared.filter(\.given).map(\.item.key)) { $0 }.values.map { ($0.key, $0) },
            uniquingKeysWith: { first, _ in first })
        var replacing: [TodoItem] = []
        var counts = ImportCounts()
        let keys = prepared.map(\.item.key)
        // Needed only when a repeating todo is completed by the file: not built for every import.
        var importing: Set<RecordKey>?
        let now = Date(timeIntervalSince1970: Double(clock.nowMilliseconds()) / 1000)
        // By index, each item stamped where it lies: taking each out of the list and stamping a copy of it made two
        // copies of 512 bytes a todo.
        for index in prepared.indices {
            guard let old = existing[prepared[index].item.key] else {
                counts.added += 1
                time.stamp(&prepared[index].item, from: nil)
                items.append(prepared[index].item)
                continue
            }
            let item = prepared[index].item
            if Self.sameValues(item, old) {
                counts.unchanged += 1
                continue
            }
            counts.updated += 1
            // Stamped like a todo added by hand, so an edit made elsewhere later is ordered after the import's values.
            replacing.append(time.stamped(item, from: old))
            // Completed in another program (Taskwarrior): the series goes on as it does for `todo done`.
            if old.isRepeating, !old.isCompleted, item.isCompleted, item.isRepeating, !item.isTrashed {
                if importing == nil { importing = Set(keys) }
                if let nextKey = RepeatingTodos.nextOccurrenceKey(of: item), importing?.contains(nextKey) == false, try await store.todo(nextKey) == nil,
                    let next = RepeatingTodos.nextOccurrence(of: item, completedAt: now, calendar: RepeatingTodos.planningCalendar)
                {
                    items.append(time.stamped(next, from: nil))
                }
            }
        }
        prepared = []
        // The lists go first; without new ones the todos are handed on as they are, not copied behind them.
        if !lists.new.isEmpty { items.insert(contentsOf: lists.new, at: 0) }
        // Into an empty outbox, new records only: their entries are then the whole outbox, handed to the next pass
        // (the first `importHandOff` of them; the pass reads the rest back after them).
        var handsOff = false
        if replacing.isEmpty { handsOff = (try? await store.pendingCount()) == 0 }
        let at = clock.nowMilliseconds()
        let sequences = try await store.addLocalRecords(items, replacing: replacing, at: at, progress: progress)
        // Many records at once: readers and the snapshot read everything again rather than key by key.
        feed.invalidateAll()
        try? await status.reloadCounts(store)
        if handsOff, sequences.count == items.count {
            let limit = status.configuration.importHandOff
            outbox.handOff(Self.queued(consume items, sequences: sequences, at: at, limit: limit), cacheChanges: feed.cacheChanges)
        }
        feed.publish()
        if status.configuration.sendsAutomatically && status.connection == .online { scheduler.request(.localEdit) }
        return (keys, counts)
    }

    /// The outbox entries `addLocalRecords` queued for `items` (new records, queued at `sequences` at `at`), as
    /// `TodoStore.pendingChanges` reads them back: each record as stored, waiting, with no merge base; the first
    /// `limit` of them.
    static func queued(_ items: consuming [TodoItem], sequences: [Int64], at: Int64, limit: Int = .max) -> [PendingChange] {
        if items.count > max(0, limit) { items.removeSubrange(max(0, limit)...) }
        var changes: [PendingChange] = []
        changes.reserveCapacity(items.count)
        for index in items.indices {
            items[index].localEditedAt = at
            items[index].hasPendingChanges = true
            items[index].keepStoredPrecision()
            changes.append(PendingChange(key: items[index].key, action: .save(items[index]), baseFields: nil, revision: 1, sequence: sequences[index]))
        }
        return changes
    }

    /// Whether an imported todo holds every value the cached one does (its list and known fields; stamps and lost
    /// values aside), so importing it again changes nothing.
    static func sameValues(_ imported: TodoItem, _ cached: TodoItem) -> Bool {
        func known(_ item: TodoItem) -> [String: FieldValue] {
            item.fields.filter { TodoItem.Field.all.contains($0.key) && $0.key != FieldStamps.fieldName && $0.key != LostEdit.fieldName }
        }
        return imported.listName == cached.listName && known(imported) == known(cached)
    }

    /// The private lists the todos name, by title: existing ones, and new list records (stamped) for the rest.
    private nonisolated(nonsending) func listsFor(_ todos: [NewTodo]) async throws -> (names: [String: String], new: [TodoItem]) {
        let wanted = Set(todos.compactMap(\.listName))
        guard !wanted.isEmpty else { return ([:], []) }
        var names: [String: String] = [:]
        for list in try await store.records(ofType: TodoSchema.listType, inZone: ZoneKey.privateTodos) where !list.isTrashed {
            if wanted.contains(list.title), names[list.title] == nil { names[list.title] = list.key.recordName }
        }
        var new: [TodoItem] = []
        for (title, name) in zip(wanted.subtracting(names.keys).sorted(), RecordNames.ascending(wanted.count)) {
            names[title] = name
            new.append(time.stamped(TodoItem(key: .privateTodo(name), recordType: TodoSchema.listType, title: title), from: nil))
        }
        return (names, new)
    }
}
