import Foundation

/// Where a record lives, which decides its tab and what "add" creates.
public enum Scope: String, Hashable, Sendable, CaseIterable {
    /// The user's own private `Todos` zone.
    case `private`
    /// A zone another user shares with this user.
    case shared
    /// The public board.
    case `public`
}

/// What "trash" does to a row, as decided by the sync layer's permission rules.
public enum TrashBehaviour: Hashable, Sendable {
    /// Delete the record (asks for confirmation first).
    case delete
    /// Set `isTrashed` (public records of the creator: deletes cannot propagate there).
    case markTrashed
    /// Refuse, showing the reason in the status line.
    case refuse(reason: String)
}

/// One todo as the UI sees it: values plus the permissions the sync layer computed.
public struct TodoRow: Hashable, Sendable, Identifiable {
    /// The record name.
    public var id: String
    /// Title, untrusted (sanitised when drawn).
    public var title: String
    /// Notes, untrusted.
    public var notes: String
    /// Done or not.
    public var isCompleted: Bool
    /// Due date, if any.
    public var dueDate: Date?
    /// Priority 0 (none) to 3 (high).
    public var priority: Int
    /// Where the record lives.
    public var scope: Scope
    /// Whether the user may edit it or toggle it.
    public var canUpdate: Bool
    /// Whether the user may delete it.
    public var canDelete: Bool
    /// What trash does.
    public var trashBehaviour: TrashBehaviour
    /// Why it is not editable (shown when an edit key is refused).
    public var lockReason: String?
    /// True while the change sits in the outbox, not yet confirmed by the server.
    public var isPending: Bool
    /// Display name of the owner or creator, for shared and public records.
    public var owner: String?

    /// Creates a row; the defaults describe an own, confirmed, private todo.
    public init(
        id: String, title: String, notes: String = "", isCompleted: Bool = false, dueDate: Date? = nil,
        priority: Int = 0, scope: Scope = .private, canUpdate: Bool = true, canDelete: Bool = true,
        trashBehaviour: TrashBehaviour = .delete, lockReason: String? = nil, isPending: Bool = false,
        owner: String? = nil
    ) {
        self.id = id
        self.title = title
        self.notes = notes
        self.isCompleted = isCompleted
        self.dueDate = dueDate
        self.priority = min(3, max(0, priority))
        self.scope = scope
        self.canUpdate = canUpdate
        self.canDelete = canDelete
        self.trashBehaviour = trashBehaviour
        self.lockReason = lockReason
        self.isPending = isPending
        self.owner = owner
    }

    /// The editable fields of this row.
    public var draft: TodoDraft {
        TodoDraft(title: title, notes: notes, dueDate: dueDate, priority: priority, scope: scope)
    }
}

/// The editable fields of a todo: what "add" creates and "edit" saves.
public struct TodoDraft: Hashable, Sendable {
    /// Title, trimmed, never empty when saved.
    public var title: String
    /// Notes.
    public var notes: String
    /// Due date, if any.
    public var dueDate: Date?
    /// Priority 0–3.
    public var priority: Int
    /// Where the record goes (private for the Todos tab, public for the Public tab).
    public var scope: Scope

    /// Creates a draft.
    public init(title: String, notes: String = "", dueDate: Date? = nil, priority: Int = 0, scope: Scope = .private) {
        self.title = title
        self.notes = notes
        self.dueDate = dueDate
        self.priority = priority
        self.scope = scope
    }
}

/// The tabs of the UI; each shows the rows of one scope.
public enum Tab: Int, Hashable, Sendable, CaseIterable {
    /// The private `Todos` zone.
    case todos
    /// Shared with me.
    case shared
    /// The public board.
    case `public`

    /// The tab's title.
    public var title: String {
        switch self {
        case .todos: "Todos"
        case .shared: "Shared"
        case .public: "Public"
        }
    }

    /// The scope whose rows this tab shows.
    public var scope: Scope {
        switch self {
        case .todos: .private
        case .shared: .shared
        case .public: .public
        }
    }

    /// The tab that shows rows of `scope`.
    public init(_ scope: Scope) {
        switch scope {
        case .private: self = .todos
        case .shared: self = .shared
        case .public: self = .public
        }
    }
}
