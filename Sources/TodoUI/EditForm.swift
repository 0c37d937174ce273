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

    /// A form for a new todo in `scope`.
    public init(newIn scope: Scope) {
        targetID = nil
        self.scope = scope
        original = nil
        editors = [LineEditor(), LineEditor(), LineEditor(), LineEditor()]
    }

    /// A form for editing `row`, showing due dates as YYYY-MM-DD in `calendar`.
    public init(editing row: TodoRow, calendar: Calendar) {
        targetID = row.id
        scope = row.scope
        original = row.draft
        editors = [
            LineEditor(row.title),
            LineEditor(row.notes),
            LineEditor(row.dueDate.map { Formatting.day($0, calendar: calendar) } ?? ""),
            LineEditor(row.priority == 0 ? "" : String(row.priority)),
        ]
    }

    /// The editor of `field`.
    public subscript(field: FormField) -> LineEditor {
        get { editors[field.rawValue] }
        set { editors[field.rawValue] = newValue }
    }
}
