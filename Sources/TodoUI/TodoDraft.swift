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
    /// Hidden from the views until then.
    public var wait: Date?
    /// Not to be started before then.
    public var scheduled: Date?
    /// Goes to the trash by itself once past.
    public var until: Date?
    /// The row ids of the todos it waits on.
    public var depends: [String]

    /// Creates a draft.
    public init(
        title: String, notes: String = "", due: DueDate? = nil, priority: Int = 0, scope: Scope = .private,
        kind: RowKind = .todo, listID: String? = nil, tags: [String] = [], repeatRule: String? = nil,
        repeatFromCompletion: Bool = false, wait: Date? = nil, scheduled: Date? = nil, until: Date? = nil, depends: [String] = []
    ) {
        self.wait = wait
        self.scheduled = scheduled
        self.until = until
        self.depends = depends
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
    /// `.some(nil)` clears the wait date.
    public var wait: Date??
    /// `.some(nil)` clears the scheduled date.
    public var scheduled: Date??
    /// `.some(nil)` clears the expiry.
    public var until: Date??
    /// The whole new list of row ids it waits on.
    public var depends: [String]?

    /// Changes of the given fields.
    public init(
        title: String? = nil, notes: String? = nil, due: DueDate?? = nil, priority: Int? = nil, tags: [String]? = nil,
        repeatRule: String?? = nil, repeatFromCompletion: Bool? = nil, wait: Date?? = nil, scheduled: Date?? = nil,
        until: Date?? = nil, depends: [String]? = nil
    ) {
        self.wait = wait
        self.scheduled = scheduled
        self.until = until
        self.depends = depends
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
            repeatFromCompletion: after.repeatFromCompletion == before.repeatFromCompletion ? nil : after.repeatFromCompletion,
            wait: after.wait == before.wait ? nil : .some(after.wait), scheduled: after.scheduled == before.scheduled ? nil : .some(after.scheduled),
            until: after.until == before.until ? nil : .some(after.until), depends: after.depends == before.depends ? nil : after.depends)
    }

    /// Whether nothing changes.
    public var isEmpty: Bool {
        title == nil && notes == nil && due == nil && priority == nil && tags == nil && repeatRule == nil
            && repeatFromCompletion == nil && wait == nil && scheduled == nil && until == nil && depends == nil
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
        if let wait { row.wait = wait }
        if let scheduled { row.scheduled = scheduled }
        if let until { row.until = until }
        if let depends { row.depends = depends }
    }
}
