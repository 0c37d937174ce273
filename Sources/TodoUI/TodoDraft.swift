import Foundation
public import TodoPlanning

/// The editable fields of a todo: what "add" creates and "edit" saves.
public struct TodoDraft: Hashable, Sendable {
    /// Title, trimmed, never empty when saved.
    public var title: String
    /// Notes.
    public var notes: String
    /// Due date (a day, or a moment), if any.
    public var due: DueDate?
    /// Priority 0–3.
    public var priority: Int
    /// Where the record goes (private for the Todos tab, public for the Public tab).
    public var scope: Scope
    /// A todo or a list.
    public var kind: RowKind
    /// The list row a new todo goes into (nil: none).
    public var listID: String?
    /// Tags, each valid by `TagName.read`.
    public var tags: [String]
    /// How it repeats, as RRULE text; nil: it does not.
    public var repeatRule: String?
    /// Whether the next occurrence counts from completion rather than from the due date.
    public var repeatFromCompletion: Bool

    /// Creates a draft.
    public init(
        title: String, notes: String = "", due: DueDate? = nil, priority: Int = 0, scope: Scope = .private,
        kind: RowKind = .todo, listID: String? = nil, tags: [String] = [], repeatRule: String? = nil,
        repeatFromCompletion: Bool = false
    ) {
        self.title = title
        self.notes = notes
        self.due = due
        self.priority = priority
        self.scope = scope
        self.kind = kind
        self.listID = listID
        self.tags = tags
        self.repeatRule = repeatRule
        self.repeatFromCompletion = repeatFromCompletion
    }
}

/// The fields an edit changes, and their new values; nil leaves a field as it is (so a value changed on another
/// device meanwhile is not written back).
public struct TodoChanges: Hashable, Sendable {
    /// The new title.
    public var title: String?
    /// The new notes.
    public var notes: String?
    /// `.some(nil)` clears the due date.
    public var due: DueDate??
    /// The new priority.
    public var priority: Int?
    /// The whole new list of tags.
    public var tags: [String]?
    /// `.some(nil)` stops the repeat; else the new RRULE text.
    public var repeatRule: String??
    /// Whether the next occurrence counts from completion.
    public var repeatFromCompletion: Bool?

    /// Changes of the given fields.
    public init(
        title: String? = nil, notes: String? = nil, due: DueDate?? = nil, priority: Int? = nil, tags: [String]? = nil,
        repeatRule: String?? = nil, repeatFromCompletion: Bool? = nil
    ) {
        self.title = title
        self.notes = notes
        self.due = due
        self.priority = priority
        self.tags = tags
        self.repeatRule = repeatRule
        self.repeatFromCompletion = repeatFromCompletion
    }

    /// What turns `before` into `after`: only the fields that differ.
    public init(from before: TodoDraft, to after: TodoDraft) {
        self.init(
            title: after.title == before.title ? nil : after.title, notes: after.notes == before.notes ? nil : after.notes,
            due: after.due == before.due ? nil : .some(after.due),
            priority: after.priority == before.priority ? nil : after.priority,
            tags: after.tags == before.tags ? nil : after.tags,
            repeatRule: after.repeatRule == before.repeatRule ? nil : .some(after.repeatRule),
            repeatFromCompletion: after.repeatFromCompletion == before.repeatFromCompletion ? nil : after.repeatFromCompletion)
    }

    /// Whether nothing changes.
    public var isEmpty: Bool {
        title == nil && notes == nil && due == nil && priority == nil && tags == nil && repeatRule == nil
            && repeatFromCompletion == nil
    }

    /// Applies the changed fields to a row.
    public func apply(to row: inout TodoRow) {
        if let title { row.title = title }
        if let notes { row.notes = notes }
        if let due { row.due = due }
        if let priority { row.priority = priority }
        if let tags { row.tags = tags }
        if let repeatRule { row.repeatRule = repeatRule }
        if let repeatFromCompletion { row.repeatFromCompletion = repeatFromCompletion }
    }
}
