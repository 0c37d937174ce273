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
