/// Everything the list view can be asked to do; keys are mapped to these by `Keymap`.
///
/// A configuration file's `[keys]` table names commands by `name`: the raw value in kebab case (`move-up`).
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
    /// Redo what the last undo took back.
    case redo
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
    /// Show or hide the Next view (open todos of every scope, most urgent first).
    case next
    /// Show or hide the calendar (the month, days with todos due counted).
    case calendar
    /// Switch to the next sort order (due, priority, created, title, next).
    case sort
    /// Put the next saved filter in effect (after the last: none).
    case nextSavedFilter
    /// Switch the context (`todo context`) to the next saved filter, then to none.
    case nextContext
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
    /// Sign in again after the session ended (asks the password, not shown).
    case signIn
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

    /// The command's name in a `[keys]` table: the case name in kebab case (`moveUp` is `move-up`).
    public var name: String {
        var name = ""
        for character in rawValue {
            if character.isUppercase {
                name += "-" + character.lowercased()
            } else {
                name.append(character)
            }
        }
        return name
    }
}
