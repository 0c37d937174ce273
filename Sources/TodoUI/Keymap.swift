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
    /// Fetch changes now.
    case refresh
    /// Show or hide the help overlay.
    case help
    /// Leave the app.
    case quit

    /// Whether the command acts on the selected row (and so must not act on one out of sight).
    public var actsOnSelection: Bool {
        switch self {
        case .edit, .toggleDone, .trash, .move, .share, .leave: true
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
        KeyBinding(keys: [.char("c")], command: .toggleCompleted, description: "show/hide completed"),
        KeyBinding(keys: [.tab], command: .nextTab, description: "next tab"),
        KeyBinding(keys: [.backTab], command: .prevTab, description: "previous tab"),
        KeyBinding(keys: [.char("r")], command: .refresh, description: "refresh (fetch now)"),
        KeyBinding(keys: [.char("?"), .function(1)], command: .help, description: "help"),
        KeyBinding(keys: [.char("q"), .ctrl("c")], command: .quit, description: "quit"),
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
        for entry in editorKeys {
            lines.append("| \(entry.keys) (edit form) | \(entry.description) |")
        }
        return lines.joined(separator: "\n")
    }
}
