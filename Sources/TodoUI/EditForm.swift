import Foundation
import TodoPlanning

/// A field of the edit form.
public enum FormField: Int, Hashable, Sendable, CaseIterable {
    /// The title (required).
    case title
    /// Notes.
    case notes
    /// Due date in `DueDateGrammar`'s words (a day, optionally a time), or empty.
    case due
    /// Priority 0–3.
    case priority
    /// Tags, separated by spaces (a leading `+` is allowed).
    case tags
    /// How it repeats, in `RepeatRule`'s words, or empty.
    case `repeat`
    /// Hidden until then (the due-date grammar), or empty.
    case wait
    /// Not to be started before then, or empty.
    case scheduled
    /// Trashed by itself once past, or empty.
    case until
    /// The todos it waits on: their IDs (as `todo list` shows them) or titles, separated by commas.
    case depends
    /// Its project: a list path such as `Home.Garden` (a list is made when none has that title), or empty for none.
    case project

    /// The label shown before the field.
    public var label: String {
        switch self {
        case .title: "Title"
        case .notes: "Notes"
        case .due: "Due"
        case .priority: "Priority"
        case .tags: "Tags"
        case .repeat: "Repeat"
        case .wait: "Wait"
        case .scheduled: "Scheduled"
        case .until: "Until"
        case .depends: "Depends"
        case .project: "Project"
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
    /// The text each field opened with: a field left as it was keeps its value, even one the grammar would word
    /// differently.
    var openedWith: [String]
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
        editors = Array(repeating: LineEditor(), count: FormField.allCases.count)
        openedWith = Array(repeating: "", count: FormField.allCases.count)
    }

    /// A form for editing `row`, showing due dates as YYYY-MM-DD (and HH:MM when timed) in `calendar`; `project` is
    /// the title of its list, `blockers` the short IDs of the todos it waits on.
    public init(editing row: TodoRow, calendar: Calendar, project: String? = nil, blockers: [String] = []) {
        targetID = row.id
        scope = row.scope
        kind = row.kind
        listID = row.listID
        original = row.draft
        let texts = [
            row.title,
            row.notes,
            row.due?.text(in: calendar) ?? "",
            row.priority == 0 ? "" : String(row.priority),
            row.tags.joined(separator: " "),
            row.repeatSummary ?? "",
            Self.momentText(row.wait, calendar: calendar),
            Self.momentText(row.scheduled, calendar: calendar),
            Self.momentText(row.until, calendar: calendar),
            blockers.joined(separator: ", "),
            project ?? "",
        ]
        editors = texts.map { LineEditor($0) }
        openedWith = texts
    }

    /// A moment as the form shows it: the day alone at the start of a day, else with its time; empty for none.
    static func momentText(_ moment: Date?, calendar: Calendar) -> String {
        guard let moment else { return "" }
        let allDay = calendar.startOfDay(for: moment) == moment
        return (allDay ? DueDate.day(moment, in: calendar) : DueDate(moment, allDay: false)).text(in: calendar)
    }

    /// Whether `field` still holds the text it opened with.
    func isUnchanged(_ field: FormField) -> Bool { self[field].text == openedWith[field.rawValue] }

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

extension EditForm {
    /// Notes how the record now differs from the values the form opened with (changed on another device), in words
    /// for the line under the fields: `changed on another device: priority 1 → 3`; nil when it does not.
    mutating func noteUnderneath(_ current: TodoDraft, calendar: Calendar) {
        guard let original else { return }
        var parts: [String] = []
        if current.title != original.title { parts.append("title '\(original.title)' → '\(current.title)'") }
        if current.notes != original.notes { parts.append("notes") }
        if current.due != original.due {
            let day = { (due: DueDate?) in due.map { $0.text(in: calendar) } ?? "none" }
            parts.append("due \(day(original.due)) → \(day(current.due))")
        }
        if current.tags != original.tags { parts.append("tags") }
        if current.repeatRule != original.repeatRule || current.repeatFromCompletion != original.repeatFromCompletion {
            parts.append("repeat")
        }
        if current.priority != original.priority { parts.append("priority \(original.priority) → \(current.priority)") }
        underneath = parts.isEmpty ? nil : "changed on another device: " + parts.joined(separator: ", ")
    }
}
