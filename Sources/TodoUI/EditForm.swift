import Foundation

/// A field of the edit form.
public enum FormField: Int, Hashable, Sendable, CaseIterable {
    /// The title (required).
    case title
    /// Notes.
    case notes
    /// Due date: YYYY-MM-DD, today, tomorrow, +3d, or empty.
    case due
    /// Priority 0–3.
    case priority

    /// The label shown before the field.
    public var label: String {
        switch self {
        case .title: "Title"
        case .notes: "Notes"
        case .due: "Due"
        case .priority: "Priority"
        }
    }
}

/// The add/edit form: one line editor per field, the focused field and an inline error.
public struct EditForm: Hashable, Sendable {
    /// The record being edited, or nil for a new one.
    public var targetID: String?
    /// Where a new record goes.
    public var scope: Scope
    /// The values before editing (nil for a new record).
    public var original: TodoDraft?
    /// The field editors.
    public var editors: [LineEditor]
    /// The field with the cursor.
    public var focus: FormField = .title
    /// Why the last save was refused, shown under the fields.
    public var error: String?
    /// How the record changed on another device while the form was open, shown under the fields.
    public var underneath: String?
    /// A todo or a list (a list has only a title).
    public var kind: RowKind
    /// The list a new todo goes into, and its title for the heading.
    public var listID: String?
    public var listTitle: String?

    /// A form for a new todo (or list) in `scope`, optionally inside a list.
    public init(newIn scope: Scope, kind: RowKind = .todo, list: TodoRow? = nil) {
        targetID = nil
        self.scope = scope
        self.kind = kind
        listID = list?.id
        listTitle = list?.title
        original = nil
        editors = [LineEditor(), LineEditor(), LineEditor(), LineEditor()]
    }

    /// A form for editing `row`, showing due dates as YYYY-MM-DD in `calendar`.
    public init(editing row: TodoRow, calendar: Calendar) {
        targetID = row.id
        scope = row.scope
        kind = row.kind
        listID = row.listID
        original = row.draft
        editors = [
            LineEditor(row.title),
            LineEditor(row.notes),
            LineEditor(row.dueDate.map { Formatting.day($0, calendar: calendar) } ?? ""),
            LineEditor(row.priority == 0 ? "" : String(row.priority)),
        ]
    }

    /// The fields the form shows, in order: a list has only its title.
    public var fields: [FormField] { kind == .list ? [.title] : FormField.allCases }

    /// The field after (or before, `step` -1) the focused one, wrapping around.
    func field(after step: Int) -> FormField {
        let fields = fields
        let index = fields.firstIndex(of: focus) ?? 0
        return fields[(index + step + fields.count) % fields.count]
    }

    /// The editor of `field`.
    public subscript(field: FormField) -> LineEditor {
        get { editors[field.rawValue] }
        set { editors[field.rawValue] = newValue }
    }
}

/// The fields an edit changes, and their new values; nil leaves a field as it is (so a value changed on another
/// device meanwhile is not written back).
public struct TodoChanges: Hashable, Sendable {
    public var title: String?
    public var notes: String?
    /// `.some(nil)` clears the due date.
    public var dueDate: Date??
    public var priority: Int?

    /// Changes of the given fields.
    public init(title: String? = nil, notes: String? = nil, dueDate: Date?? = nil, priority: Int? = nil) {
        self.title = title
        self.notes = notes
        self.dueDate = dueDate
        self.priority = priority
    }

    /// What turns `before` into `after`: only the fields that differ.
    public init(from before: TodoDraft, to after: TodoDraft) {
        self.init(
            title: after.title == before.title ? nil : after.title, notes: after.notes == before.notes ? nil : after.notes,
            dueDate: after.dueDate == before.dueDate ? nil : .some(after.dueDate),
            priority: after.priority == before.priority ? nil : after.priority)
    }

    /// Whether nothing changes.
    public var isEmpty: Bool { title == nil && notes == nil && dueDate == nil && priority == nil }

    /// Applies the changed fields to a row.
    public func apply(to row: inout TodoRow) {
        if let title { row.title = title }
        if let notes { row.notes = notes }
        if let dueDate { row.dueDate = dueDate }
        if let priority { row.priority = priority }
    }
}

extension EditForm {
    /// Notes how the record now differs from the values the form opened with (changed on another device), in words
    /// for the line under the fields: `changed on another device: priority 1 → 3`; nil when it does not.
    mutating func noteUnderneath(_ current: TodoDraft, calendar: Calendar) {
        guard let original else { return }
        var parts: [String] = []
        if current.title != original.title { parts.append("title '\(original.title)' → '\(current.title)'") }
        if current.notes != original.notes { parts.append("notes") }
        if current.dueDate != original.dueDate {
            let day = { (date: Date?) in date.map { Formatting.day($0, calendar: calendar) } ?? "none" }
            parts.append("due \(day(original.dueDate)) → \(day(current.dueDate))")
        }
        if current.priority != original.priority { parts.append("priority \(original.priority) → \(current.priority)") }
        underneath = parts.isEmpty ? nil : "changed on another device: " + parts.joined(separator: ", ")
    }
}
