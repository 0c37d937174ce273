import CloudModel
import Foundation
import TodoPlanning
import TodoStore

/// The fields of a todo to add in bulk (an import); the engine names it.
public struct NewTodo: Sendable, Hashable {
    public var title: String
    public var notes: String
    public var due: DueDate?
    /// 0 (none) to 3 (high); clamped.
    public var priority: Int
    public var isCompleted: Bool
    /// Tags (names that break the tag rule are dropped).
    public var tags: [String]
    /// How it repeats, nil when it does not.
    public var repeating: RepeatSetting?
    /// Timestamped notes.
    public var annotations: [Annotation]
    /// The record name to use (an interchange file's UID), nil for a fresh one; a name the cloud could not take
    /// (empty, over 200 bytes, control characters) is replaced by a fresh one.
    public var recordName: String?
    /// The title of the private list it goes into (made when no list has that title), nil for none.
    public var listName: String?
    /// The repeating series it is an occurrence of (nil: its own).
    public var series: String?
    /// Its number in that series, from 1.
    public var occurrence = 1

    /// A todo to add.
    public init(
        title: String, notes: String = "", due: DueDate? = nil, priority: Int = 0, isCompleted: Bool = false, tags: [String] = [],
        repeating: RepeatSetting? = nil, annotations: [Annotation] = []
    ) {
        self.title = title
        self.notes = notes
        self.due = due
        self.priority = priority
        self.isCompleted = isCompleted
        self.tags = tags
        self.repeating = repeating
        self.annotations = annotations
        self.recordName = nil
        self.listName = nil
    }

    /// Whether `name` can name a record: 1 to 200 bytes (room for an occurrence suffix), no control characters.
    static func isUsableName(_ name: String) -> Bool {
        (1...200).contains(name.utf8.count) && !name.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// Bytes of the fields this todo is sent with, as the cloud measures a record against its 1 MB limit (before the
    /// edit stamps, a few hundred bytes, are added).
    public var recordBytes: Int {
        var writer = JSONWriter(reserving: title.utf8.count + notes.utf8.count + 256)
        writer.fields(item(.privateTodo("size")).fields)
        return writer.bytes.count
    }

    /// Whether the cloud can take this todo: its fields within the record limit, with room for the edit stamps.
    public var fitsCloudRecord: Bool { recordBytes <= CloudLimits.maxRecordBytes - 4096 }

    /// The record this todo becomes under a name, before it is stamped (every way of adding todos makes them here).
    func item(_ key: RecordKey) -> TodoItem {
        var item = TodoItem(key: key, title: title, notes: notes, isCompleted: isCompleted, priority: min(max(priority, 0), 3))
        TodoEdit(due: .some(due), addTags: TagName.valid(tags), repeatRule: repeating.map { .some($0) }, annotate: annotations).apply(to: &item)
        item.series = series.flatMap { NewTodo.isUsableName($0) ? $0 : nil }
        item.occurrence = max(1, occurrence)
        return item
    }
}

/// What an import did: how many todos it added, updated, and found as they were.
public struct ImportCounts: Sendable, Hashable {
    /// Todos this device did not hold.
    public var added = 0
    /// Todos it held, changed by the file.
    public var updated = 0
    /// Todos it held with every value the file gives (nothing stored, nothing sent).
    public var unchanged = 0

    /// Nothing counted yet.
    public init() {}

    /// `added N, updated M, unchanged K`.
    public var summary: String { "added \(added), updated \(updated), unchanged \(unchanged)" }
}

extension SyncEngine {
    /// Adds many todos to the private `Todos` zone: stored and queued in ONE transaction (all or none), then shown;
    /// sent in the background when the engine sends automatically, else by the next `sync`. Answers the keys, in
    /// the order given. `progress` hears how many are stored so far.
    @discardableResult
    public func addTodos(_ todos: [NewTodo], progress: (@Sendable (Int) -> Void)? = nil) async throws -> [RecordKey] {
        try await importTodos(todos, progress: progress).keys
    }

    /// `addTodos`, answering also how many were added, updated and unchanged. A todo the file completes that was an
    /// open occurrence here makes its next occurrence (as `todo done` does) unless the file or the cache holds it.
    public func importTodos(
        _ todos: [NewTodo], progress: (@Sendable (Int) -> Void)? = nil
    ) async throws -> (keys: [RecordKey], counts: ImportCounts) {
        guard permissionContext.isSignedIn else { throw SyncEngineError.refused("signed out: sign in to add todos") }
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
        let importing = Set(keys)
        let now = Date(timeIntervalSince1970: Double(clock.nowMilliseconds()) / 1000)
        for (item, _) in prepared {
            guard let old = existing[item.key] else {
                counts.added += 1
                items.append(stamped(item, from: nil))
                continue
            }
            if Self.sameValues(item, old) {
                counts.unchanged += 1
                continue
            }
            counts.updated += 1
            // Stamped like a todo added by hand, so an edit made elsewhere later is ordered after the import's values.
            replacing.append(stamped(item, from: old))
            // Completed in another program (Taskwarrior): the series goes on as it does for `todo done`.
            if old.isRepeating, !old.isCompleted, item.isCompleted, item.isRepeating, !item.isTrashed {
                if let nextKey = Self.nextOccurrenceKey(of: item), !importing.contains(nextKey), try await store.todo(nextKey) == nil,
                    let next = Self.nextOccurrence(of: item, completedAt: now, calendar: planningCalendar)
                {
                    items.append(stamped(next, from: nil))
                }
            }
        }
        prepared = []
        try await store.addLocalRecords(lists.new + consume items, replacing: replacing, at: clock.nowMilliseconds(), progress: progress)
        // Many records at once: readers and the snapshot read everything again rather than key by key.
        invalidateAll()
        try? await reloadCounts()
        publish()
        if configuration.sendsAutomatically && connection == .online { requestSync(.localEdit) }
        return (keys, counts)
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
    private func listsFor(_ todos: [NewTodo]) async throws -> (names: [String: String], new: [TodoItem]) {
        let wanted = Set(todos.compactMap(\.listName))
        guard !wanted.isEmpty else { return ([:], []) }
        var names: [String: String] = [:]
        for list in try await store.records(ofType: TodoSchema.listType, inZone: ZoneKey.privateTodos) where !list.isTrashed {
            if wanted.contains(list.title), names[list.title] == nil { names[list.title] = list.key.recordName }
        }
        var new: [TodoItem] = []
        for (title, name) in zip(wanted.subtracting(names.keys).sorted(), RecordNames.ascending(wanted.count)) {
            names[title] = name
            new.append(stamped(TodoItem(key: .privateTodo(name), recordType: TodoSchema.listType, title: title), from: nil))
        }
        return (names, new)
    }
}
