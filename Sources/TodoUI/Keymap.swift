public import Terminal

/// Everything the list view can be asked to do; keys are mapped to these by `Keymap`.
public enum Command: String, Hashable, Sendable, CaseIterable {
    /// Select the previous row.
    case moveUp
    /// Select the next row.
    case moveDown
    /// Move one page up.
    case pageUp
    /// Move one page down.
    case pageDown
    /// Select the first row.
    case top
    /// Select the last row.
    case bottom
    /// Open the form for a new todo.
    case add
    /// Open the form for the selected todo.
    case edit
    /// Mark the selected todo done or not done.
    case toggleDone
    /// Delete the selected todo or list after asking (a public post is marked deleted; refused per its permissions).
    case trash
    /// Undo the last local action.
    case undo
    /// Start filtering as you type.
    case filter
    /// Show or hide completed todos.
    case toggleCompleted
    /// Switch to the next tab.
    case nextTab
    /// Switch to the previous tab.
    case prevTab
    /// Open the form for a new list.
    case newList
    /// Move the selected todo to another list.
    case move
    /// Share the selected list (invite, change access, stop sharing).
    case share
    /// Show invitations to lists others share.
    case invitations
    /// Leave a list someone shares with you.
    case leave
    /// Show the details of the selected todo (notes, annotations, repeat, tags).
    case details
    /// Show or hide the Today view (overdue, today, next 7 days, every scope).
    case today
    /// Switch to the next sort order (due, priority, created, title).
    case sort
    /// Put the next saved filter in effect (after the last: none).
    case nextSavedFilter
    /// Save the filter in effect under a name.
    case saveFilter
    /// Skip this occurrence of a repeating todo.
    case skip
    /// Mark or unmark the selected todo for a bulk action.
    case mark
    /// Clear the marks.
    case clearMarks
    /// Set the priority of the selected (or marked) todos.
    case priority
    /// Add a tag to the selected (or marked) todos.
    case addTag
    /// Remove a tag from the selected (or marked) todos.
    case removeTag
    /// Fetch changes now.
    case refresh
    /// Show or hide the help overlay.
    case help
    /// Leave the app.
    case quit

    /// Whether the command acts on the selected row (and so must not act on one out of sight).
    public var actsOnSelection: Bool {
        switch self {
        case .edit, .toggleDone, .trash, .move, .share, .leave, .details, .skip, .mark, .priority, .addTag, .removeTag: true
        default: false
        }
    }
}

/// One line of the keymap: the keys that trigger a command, and what it does.
public struct KeyBinding: Hashable, Sendable {
    /// The keys, in the order they are listed in help.
    public var keys: [Key]
    /// The command.
    public var command: Command
    /// One-line description used by the help overlay and the README.
    public var description: String

    /// The keys as shown to people ("j ↓").
    public var keyLabel: String { keys.map(\.label).joined(separator: " ") }
}

/// The list view's key → command table: data, shared by the reducer, the help overlay and the README.
public enum Keymap {
    /// The one rule for questions, as help lines: what asks, and how a question is answered.
    public static let questionRule: [(keys: String, description: String)] = [
        (keys: "d  x  Ctrl-X", description: "ask y/n before removing anything"),
        (keys: "y", description: "confirms; n, Esc or q keep it"),
        (keys: "other keys", description: "keep the question, say y or n"),
        (keys: "u", description: "undoes it (same todo, same state)"),
    ]

    /// Every binding, in help order.
    public static let bindings: [KeyBinding] = [
        KeyBinding(keys: [.char("k"), .up], command: .moveUp, description: "move up"),
        KeyBinding(keys: [.char("j"), .down], command: .moveDown, description: "move down"),
        KeyBinding(keys: [.ctrl("u"), .pageUp], command: .pageUp, description: "page up"),
        KeyBinding(keys: [.ctrl("d"), .pageDown], command: .pageDown, description: "page down"),
        KeyBinding(keys: [.char("g"), .home], command: .top, description: "first todo"),
        KeyBinding(keys: [.char("G"), .end], command: .bottom, description: "last todo"),
        KeyBinding(keys: [.char("a")], command: .add, description: "add a todo (to the selected list)"),
        KeyBinding(keys: [.char("e"), .enter], command: .edit, description: "edit the todo, rename the list"),
        KeyBinding(keys: [.char(" ")], command: .toggleDone, description: "toggle done"),
        KeyBinding(keys: [.char("d")], command: .trash, description: "delete, after asking (a list: with its todos)"),
        KeyBinding(keys: [.char("u")], command: .undo, description: "undo last action"),
        KeyBinding(keys: [.char("n")], command: .newList, description: "new list"),
        KeyBinding(keys: [.char("m")], command: .move, description: "move the todo to another list"),
        KeyBinding(keys: [.char("s")], command: .share, description: "share the list (people, access)"),
        KeyBinding(keys: [.char("i")], command: .invitations, description: "invitations to shared lists"),
        KeyBinding(keys: [.char("x")], command: .leave, description: "leave a list shared with you"),
        KeyBinding(keys: [.char("/")], command: .filter, description: "filter as you type"),
        KeyBinding(keys: [.char("f")], command: .nextSavedFilter, description: "next saved filter, then none"),
        KeyBinding(keys: [.char("F")], command: .saveFilter, description: "save the filter under a name"),
        KeyBinding(keys: [.char("c")], command: .toggleCompleted, description: "show/hide completed"),
        KeyBinding(keys: [.char("T")], command: .today, description: "Today: overdue, today, 7 days"),
        KeyBinding(keys: [.char("O")], command: .sort, description: "cycle the sort order"),
        KeyBinding(keys: [.char("o")], command: .details, description: "details, notes log (a annotates)"),
        KeyBinding(keys: [.char(">")], command: .skip, description: "skip this repeat occurrence"),
        KeyBinding(keys: [.char("p")], command: .priority, description: "set priority (0-3)"),
        KeyBinding(keys: [.char("+")], command: .addTag, description: "add a tag"),
        KeyBinding(keys: [.char("-")], command: .removeTag, description: "remove a tag"),
        KeyBinding(keys: [.char("v")], command: .mark, description: "mark for a bulk action"),
        KeyBinding(keys: [.escape], command: .clearMarks, description: "clear the marks"),
        KeyBinding(keys: [.tab], command: .nextTab, description: "next tab"),
        KeyBinding(keys: [.backTab], command: .prevTab, description: "previous tab"),
        KeyBinding(keys: [.char("r")], command: .refresh, description: "refresh (fetch now)"),
        KeyBinding(keys: [.char("?"), .function(1)], command: .help, description: "help"),
        KeyBinding(keys: [.char("q"), .ctrl("c")], command: .quit, description: "quit"),
    ]

    /// What the action keys do while todos are marked (`v`), for help and the README.
    public static let bulkKeys: [(keys: String, description: String)] = [
        ("Space", "complete them (reopen if all done)"),
        ("d", "delete them, after asking"),
        ("m", "move them to a list"),
        ("p", "set their priority"),
        ("+ -", "add / remove a tag"),
        ("u", "undoes the whole action"),
        ("Esc", "clear the marks"),
    ]

    /// The terms of a filter typed after `/`, for help and the README.
    public static let filterSyntax: [(keys: String, description: String)] = [
        ("words", "in the title or notes"),
        ("+tag -tag", "has / has not the tag"),
        ("list:NAME", "in the list"),
        ("due:today", "also due:none, due:overdue"),
        ("due.before:DATE", "also due.after:, due.by:"),
        ("pri:2+ pri:1-", "priority at least / at most"),
        ("is:open", "also is:done, is:repeating, is:overdue"),
    ]

    /// The keys of the detail view (`o`).
    public static let detailKeys: [(keys: String, description: String)] = [
        ("a", "add an annotation"),
        ("e", "edit the todo"),
        ("j k", "scroll"),
        ("Esc q o", "close"),
    ]

    /// The keys of the edit form's line editor, for help and the README.
    public static let editorKeys: [(keys: String, description: String)] = [
        ("← → Home End", "move the cursor (also Ctrl-A / Ctrl-E)"),
        ("Backspace Del", "delete before / at the cursor"),
        ("Ctrl-U Ctrl-K", "delete to start / to end of field"),
        ("Tab ↓ / Shift-Tab ↑", "next / previous field"),
        ("Enter", "save"),
        ("Esc", "cancel"),
    ]

    private static let table: [Key: Command] = {
        var table: [Key: Command] = [:]
        for binding in bindings {
            for key in binding.keys { table[key] = binding.command }
        }
        return table
    }()

    /// The command bound to `key` in the list view, if any.
    public static func command(for key: Key) -> Command? {
        table[key]
    }

    /// The binding of `command`.
    public static func binding(for command: Command) -> KeyBinding? {
        bindings.first { $0.command == command }
    }

    /// The keymap as a Markdown table, for the README.
    public static func markdownTable() -> String {
        var lines = ["| Keys | Action |", "| --- | --- |"]
        for binding in bindings {
            let keys = binding.keys.map { "`\($0.label)`" }.joined(separator: " ")
            lines.append("| \(keys) | \(binding.description) |")
        }
        for entry in bulkKeys {
            lines.append("| \(entry.keys) (marked todos) | \(entry.description) |")
        }
        for entry in filterSyntax {
            lines.append("| `\(entry.keys)` (filter) | \(entry.description) |")
        }
        for entry in detailKeys {
            lines.append("| \(entry.keys) (details) | \(entry.description) |")
        }
        for entry in editorKeys {
            lines.append("| \(entry.keys) (edit form) | \(entry.description) |")
        }
        return lines.joined(separator: "\n")
    }
}
