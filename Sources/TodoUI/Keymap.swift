public import Terminal

/// One line of the keymap: the keys that trigger a command, and what it does.
public struct KeyBinding: Hashable, Sendable {
    /// The keys, in the order they are listed in help (empty: the command has no key).
    public var keys: [Key]
    /// The command.
    public var command: Command
    /// One-line description used by the help overlay and docs/USAGE.md.
    public var description: String

    /// The keys as shown to people ("j ↓").
    public var keyLabel: String { keys.map(\.label).joined(separator: " ") }
}

/// The list view's key → command table: a value the app state holds, shared by the reducer, the help overlay and
/// docs/USAGE.md. `standard` is the app's own; `init(overrides:)` reads a configuration file's `[keys]` table.
public struct Keymap: Sendable, Hashable {
    /// Every binding, in help order (a command a `[keys]` table left without key has an empty `keys`).
    public private(set) var bindings: [KeyBinding]
    private var table: [Key: Command]

    /// Creates a keymap from bindings, each key given to one command.
    init(bindings: [KeyBinding]) {
        self.bindings = bindings
        var table: [Key: Command] = [:]
        for binding in bindings {
            for key in binding.keys { table[key] = binding.command }
        }
        self.table = table
    }

    /// The app's own keys.
    public static let standard = Keymap(bindings: [
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
        KeyBinding(keys: [.char("U")], command: .redo, description: "redo what u undid"),
        KeyBinding(keys: [.char("n")], command: .newList, description: "new list"),
        KeyBinding(keys: [.char("m")], command: .move, description: "move the todo to another list"),
        KeyBinding(keys: [.char("s")], command: .share, description: "share the list (people, access)"),
        KeyBinding(keys: [.char("i")], command: .invitations, description: "invitations to shared lists"),
        KeyBinding(keys: [.char("x")], command: .leave, description: "leave a list shared with you"),
        KeyBinding(keys: [.char("/")], command: .filter, description: "filter as you type"),
        KeyBinding(keys: [.char("f")], command: .nextSavedFilter, description: "next saved filter, then none"),
        KeyBinding(keys: [.char("F")], command: .saveFilter, description: "save the filter under a name"),
        KeyBinding(keys: [.char("X")], command: .nextContext, description: "switch the context (saved filters)"),
        KeyBinding(keys: [.char("c")], command: .toggleCompleted, description: "show/hide completed"),
        KeyBinding(keys: [.char("T")], command: .today, description: "Today: overdue, today, 7 days"),
        KeyBinding(keys: [.char("N")], command: .next, description: "Next: most urgent first"),
        KeyBinding(keys: [.char("C")], command: .calendar, description: "Calendar: the month, due by day"),
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
        KeyBinding(keys: [.char("L")], command: .signIn, description: "sign in again (session ended)"),
        KeyBinding(keys: [.char("?"), .function(1)], command: .help, description: "help"),
        KeyBinding(keys: [.char("q"), .ctrl("c")], command: .quit, description: "quit"),
    ])

    /// The command bound to `key` in the list view, if any.
    public func command(for key: Key) -> Command? {
        table[key]
    }

    /// The binding of `command` (its `keys` may be empty).
    public func binding(for command: Command) -> KeyBinding? {
        bindings.first { $0.command == command }
    }

    /// The label of the first key of `command` ("u", "Ctrl-F"), for hints; nil when it has no key.
    public func keyLabel(for command: Command) -> String? {
        binding(for: command)?.keys.first?.label
    }

    /// The commands left without any key (by a `[keys]` table that gave their keys to others).
    public var unboundCommands: [Command] {
        bindings.filter(\.keys.isEmpty).map(\.command)
    }

    /// The one rule for questions, as help lines: what asks, and how a question is answered.
    public var questionRule: [(keys: String, description: String)] {
        let asking = [keyLabel(for: .trash), keyLabel(for: .leave), "Ctrl-X"].compactMap(\.self).joined(separator: "  ")
        var lines: [(keys: String, description: String)] = [
            (keys: asking, description: "ask y/n before removing anything"),
            (keys: "y", description: "confirms; n, Esc or q keep it"),
            (keys: "other keys", description: "keep the question, say y or n"),
        ]
        if let undo = keyLabel(for: .undo) { lines.append((keys: undo, description: "undoes it (same todo, same state)")) }
        return lines
    }

    /// What the action keys do while todos are marked, for help and docs/USAGE.md.
    public var bulkKeys: [(keys: String, description: String)] {
        let tags = [keyLabel(for: .addTag), keyLabel(for: .removeTag)].compactMap(\.self).joined(separator: " ")
        let entries: [(keys: String?, description: String)] = [
            (keyLabel(for: .toggleDone), "complete them (reopen if all done)"),
            (keyLabel(for: .trash), "delete them, after asking"),
            (keyLabel(for: .move), "move them to a list"),
            (keyLabel(for: .priority), "set their priority"),
            (tags.isEmpty ? nil : tags, "add / remove a tag"),
            (keyLabel(for: .undo), "undoes the whole action"),
            (binding(for: .clearMarks)?.keyLabel, "clear the marks"),
        ]
        return entries.compactMap { entry in entry.keys.map { (keys: $0, description: entry.description) } }
    }

    /// The terms of a filter typed after the filter key, for help and docs/USAGE.md.
    public static let filterSyntax: [(keys: String, description: String)] = [
        ("words", "in the title, notes or annotations"),
        ("+tag -tag", "has / has not the tag"),
        ("list:NAME", "in the list"),
        ("due:today", "also due:none, due:overdue"),
        ("due.before:DATE", "also due.after:, due.by:"),
        ("pri:2+ pri:1-", "priority at least / at most"),
        ("is:open", "also is:done, is:repeating, is:overdue"),
    ]

    /// The keys of the detail view (fixed; the details key of the keymap closes it too).
    public static let detailKeys: [(keys: String, description: String)] = [
        ("a", "add an annotation"),
        ("e", "edit the todo"),
        ("n", "edit the notes (several lines) in $EDITOR"),
        ("j k", "scroll"),
        ("Esc q o", "close"),
    ]

    /// The keys of the edit form's line editor (fixed), for help and docs/USAGE.md.
    public static let editorKeys: [(keys: String, description: String)] = [
        ("← → Home End", "move the cursor (also Ctrl-A / Ctrl-E)"),
        ("Backspace Del", "delete before / at the cursor"),
        ("Ctrl-U Ctrl-K", "delete to start / to end of field"),
        ("Tab ↓ / Shift-Tab ↑", "next / previous field"),
        ("Enter", "save"),
        ("Esc", "cancel"),
    ]

    /// The standard keymap as a Markdown table, for docs/USAGE.md and `todo keys`.
    public static func markdownTable() -> String {
        standard.markdownTable()
    }

    /// The keymap as a Markdown table: keys, action and the command's name in a `[keys]` table, then the fixed keys.
    public func markdownTable() -> String {
        var lines = ["| Keys | Action | Name in `[keys]` |", "| --- | --- | --- |"]
        for binding in bindings {
            let keys = binding.keys.map { "`\($0.label)`" }.joined(separator: " ")
            lines.append("| \(keys) | \(binding.description) | `\(binding.command.name)` |")
        }
        for entry in bulkKeys {
            lines.append("| \(entry.keys) (marked todos) | \(entry.description) | |")
        }
        for entry in Self.filterSyntax {
            lines.append("| `\(entry.keys)` (filter) | \(entry.description) | |")
        }
        for entry in Self.detailKeys {
            lines.append("| \(entry.keys) (details) | \(entry.description) | |")
        }
        for entry in Self.editorKeys {
            lines.append("| \(entry.keys) (edit form) | \(entry.description) | |")
        }
        return lines.joined(separator: "\n")
    }
}
