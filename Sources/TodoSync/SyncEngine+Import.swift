import CloudModel
import Foundation
import TodoStore

/// The fields of a todo to add in bulk (an import); the engine names it.
public struct NewTodo: Sendable, Hashable {
    public var title: String
    public var notes: String
    public var dueDate: Date?
    /// 0 (none) to 3 (high); clamped.
    public var priority: Int
    public var isCompleted: Bool

    /// A todo to add.
    public init(title: String, notes: String = "", dueDate: Date? = nil, priority: Int = 0, isCompleted: Bool = false) {
        self.title = title
        self.notes = notes
        self.dueDate = dueDate
        self.priority = priority
        self.isCompleted = isCompleted
    }
}

extension SyncEngine {
    /// Adds many todos to the private `Todos` zone: stored and queued in ONE transaction (all or none), then shown;
    /// sent in the background when the engine sends automatically, else by the next `sync`. Answers the keys, in
    /// the order given. `progress` hears how many are stored so far.
    @discardableResult
    public func addTodos(_ todos: [NewTodo], progress: (@Sendable (Int) -> Void)? = nil) async throws -> [RecordKey] {
        guard permissionContext.isSignedIn else { throw SyncEngineError.refused("signed out: sign in to add todos") }
        guard !todos.isEmpty else { return [] }
        var items: [TodoItem] = []
        items.reserveCapacity(todos.count)
        for (todo, name) in zip(todos, RecordNames.ascending(todos.count)) {
            // Stamped like a todo added by hand, so an edit made elsewhere later is ordered after the import's values.
            items.append(
                stamped(
                    TodoItem(
                        key: .privateTodo(name), title: todo.title, notes: todo.notes, isCompleted: todo.isCompleted,
                        dueDate: todo.dueDate, priority: min(max(todo.priority, 0), 3)),
                    from: nil))
        }
        let keys = items.map(\.key)
        try await store.addLocalRecords(consume items, at: clock.nowMilliseconds(), progress: progress)
        // Many records at once: readers and the snapshot read everything again rather than key by key.
        invalidateAll()
        try? await reloadCounts()
        publish()
        if configuration.sendsAutomatically && connection == .online { requestSync(.localEdit) }
        return keys
    }
}
