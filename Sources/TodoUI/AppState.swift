import Foundation
#if canImport(Glibc)
import Glibc
#endif
public import Terminal
import TodoPlanning

/// A message in the status line.
public struct StatusMessage: Hashable, Sendable {
    /// How the message is coloured.
    public enum Kind: Hashable, Sendable {
        /// Neutral information.
        case info
        /// Something worked.
        case success
        /// Refused or needs attention.
        case warning
        /// Something failed.
        case error
    }

    /// The text (sanitised when drawn).
    public var text: String
    /// Its kind.
    public var kind: Kind

    /// Creates a message.
    public init(_ text: String, kind: Kind = .info) {
        self.text = text
        self.kind = kind
    }
}

/// What the keyboard currently drives.
public enum Mode: Hashable, Sendable {
    /// The list of todos.
    case list
    /// The add/edit form.
    case edit(EditForm)
    /// "Delete 'title'? y/n" for the record with this id.
    case confirmDelete(id: String)
    /// The help overlay.
    case help
    /// Typing the filter.
    case filter
    /// Choosing the list a todo moves to.
    case pickList(ListPicker)
    /// Sharing a list: invite people, change or remove them.
    case share(ShareDialog)
    /// Invitations to lists others share, with the selected one.
    case invitations(selection: Int)
    /// "Leave 'title'? y/n" for the shared list with this id.
    case confirmLeave(id: String)
    /// The details of one todo: everything it holds, notes and annotations in full.
    case detail(DetailView)
    /// A one-line question: a filter's name, an annotation, a tag or priority for the marked todos.
    case prompt(Prompt)
    /// "Delete N marked todos? y/n".
    case confirmBulkDelete(ids: [String])
    /// The calendar: a month, the days with todos due counted.
    case calendar(CalendarView)
}

/// An action that can be undone, and how.
struct UndoEntry: Hashable, Sendable {
    enum Action: Hashable, Sendable {
        /// Perform these effects (applied optimistically too).
        case perform([Effect])
        /// Create the rows again under their own ids (record names), with their done state: a deleted todo, or a
        /// deleted list first and then its todos.
        case recreate([TodoRow])
        /// Clear `isTrashed` and show the row again.
        case untrash(TodoRow)
        /// All of these, as one step.
        case several([Action])
    }

    var label: String
    var action: Action
    /// Whether undoing sends its effects as one `Effect.batch` (a bulk action).
    var batched = false
}

/// The id a new record's row gets: from a fresh record name, the scope it goes to and the list row it goes into.
///
/// It must be the id the sync layer reports the record under once stored, so the row drawn at once and the record
/// confirmed later are one row (a public post, a todo in a list someone else owns: their ids say where they live).
public typealias RowNaming = @Sendable (_ name: String, _ scope: Scope, _ listID: String?) -> String

/// The whole UI state: data from the sync engine plus what the user is doing with it.
///
/// Mutate it only through `reduce(_:)`, `update(rows:status:)`, `update(status:)`,
/// `resize(to:)` and `post(_:)`; render it with `render(_:into:)`.
public struct AppState: Sendable {
    /// Sync status shown in the header.
    public internal(set) var status: SyncStatus
    /// The tab on screen.
    public internal(set) var tab: Tab = .todos
    /// The filter text being typed or in effect (`TodoFilter` syntax: words, +tag, -tag, list:, due:, pri:, is:).
    public internal(set) var filter = LineEditor()
    /// The filter in effect: the last filter text that parsed (nil: none).
    var activeFilter: TodoFilter?
    /// What the tag masks decide of `activeFilter` (nil: nothing).
    var tagPrefilter: TagIndex.Prefilter?
    /// The text of the filter in effect ("" when none).
    public internal(set) var appliedFilterText = ""
    /// The filter in effect when `/` was pressed: Enter on a filter that does not read goes back to it.
    var filterBeforeEditing = ""
    /// Why the filter text typed last does not parse (the filter before it stays in effect); nil when it parses.
    public internal(set) var filterError: String?
    /// Filters kept under names ("contexts"), cycled with `f`.
    public internal(set) var savedFilters: [SavedFilter]
    /// The context in effect (`todo context NAME`): a saved filter applied under the others; nil for none.
    public internal(set) var context: SavedFilter?
    /// The context's filter, compiled.
    var contextFilter: TodoFilter?
    /// How todos are ordered on every tab.
    public internal(set) var sortOrder: SortOrder
    /// The list view's keys (the standard ones, or a configuration file's).
    public internal(set) var keymap: Keymap
    /// Ids of the rows marked for a bulk action (`v`).
    public internal(set) var marked: Set<String> = []
    /// Whether the Today view (overdue, today, next 7 days, all scopes) shows instead of the tab's rows.
    public internal(set) var showsToday = false
    /// Which view `showsToday` shows: Today's days, or the Next view's ranking.
    public internal(set) var agendaKind = AgendaKind.today
    /// Whether calendars start their weeks on Sunday (config.toml's `[view] week-start`; else Monday).
    public var sundayFirst = false
    /// The urgency coefficients the Next view ranks with (config.toml's `[urgency]`).
    public var urgencyCoefficients = UrgencyCoefficients()
    /// The Next view's urgency of each line of `agenda`, by position (0 for its heading).
    public internal(set) var agendaScores: [Double] = []
    /// The lines of the Today view, rebuilt with the visible rows while it shows.
    public internal(set) var agenda: AgendaLines = []
    /// Index of the selected line of the Today view (always a todo line when there is one).
    public internal(set) var agendaSelection = 0
    /// First line of the Today view on screen.
    public internal(set) var agendaScroll = 0
    /// Whether completed todos are listed.
    public internal(set) var showCompleted = true
    /// What the keyboard drives.
    public internal(set) var mode: Mode = .list
    /// The status-line message, cleared on the next key.
    public internal(set) var message: StatusMessage?
    /// "Now", for "synced 2 s ago" and overdue dates; the loop sets it before each frame.
    public var now: Date
    /// Calendar (and time zone) for due dates.
    public var calendar: Calendar
    /// The terminal size the state was laid out for.
    public internal(set) var size: TerminalSize
    /// First visible row of the list (index into `visibleRows`).
    public internal(set) var scroll = 0
    /// Index of the selected row in `visibleRows`.
    public internal(set) var selection = 0
    /// First line shown in the help overlay.
    public internal(set) var helpScroll = 0
    /// Rows read from the cache so far for the first frames (and how many there are); nil once all are read.
    public internal(set) var loading: FetchProgress?
    /// Whether a key was pressed while rows were still being read: until then the list shows its top as rows
    /// arrive; from then on the selected record keeps its place on screen.
    var keyPressedWhileLoading = false
    /// Whether `G` was the last key pressed while rows were still being read: the selection then stays on the last
    /// row as rows arrive, so it is at the true end once all are read.
    var followsEndWhileLoading = false
    /// Maximum number of undo steps kept.
    public static let undoLimit = 50

    var tabs: [Tab: TabRows] = [:]
    /// Indices into the current tab's sorted rows that pass the filters, in display order.
    var visible: [Int] = []
    var selectedIDs: [Tab: String] = [:]
    var undoStack: [UndoEntry] = []
    /// What `u` took back, newest last, for `U`; a new action forgets it.
    var redoStack: [UndoEntry] = []
    let makeID: @Sendable () -> String
    let nameRow: RowNaming

    /// Creates an empty state; `makeID` names new records (UUIDs by default) and `nameRow` makes that name the id the
    /// sync layer will report the record under (the name itself by default). `sortOrder`, `savedFilters` and
    /// `keymap` come from the config file.
    public init(
        status: SyncStatus, size: TerminalSize = TerminalSize(width: 80, height: 24), now: Date = Date(),
        calendar: Calendar = Formatting.isoCalendar, makeID: @escaping @Sendable () -> String = { UUID().uuidString },
        nameRow: @escaping RowNaming = { name, _, _ in name }, sortOrder: SortOrder = .priority,
        savedFilters: [SavedFilter] = [], keymap: Keymap = .standard
    ) {
        self.keymap = keymap
        self.sortOrder = sortOrder
        self.savedFilters = savedFilters
        self.status = status
        self.size = size
        self.now = now
        self.calendar = calendar
        self.makeID = makeID
        self.nameRow = nameRow
    }

    // MARK: reading

    /// The rows of the current tab that pass the filters, in display order.
    public var visibleRows: [TodoRow] {
        let rows = tabs[tab]?.rows ?? []
        return visible.map { rows[$0] }
    }

    /// Number of rows listed on the current tab.
    public var visibleCount: Int { visible.count }

    /// The row at `index` of the listed rows.
    public func visibleRow(at index: Int) -> TodoRow {
        tabs[tab]!.rows[visible[index]]
    }

    /// The selected row (of the Today view while it shows), if the list is not empty.
    public var selectedRow: TodoRow? {
        if showsToday {
            guard agenda.indices.contains(agendaSelection), case .todo(let row) = agenda[agendaSelection] else { return nil }
            return row
        }
        return visible.indices.contains(selection) ? visibleRow(at: selection) : nil
    }

    /// All rows of a tab, sorted (including completed and filtered-out ones).
    public func rows(in tab: Tab) -> [TodoRow] {
        tabs[tab]?.rows ?? []
    }

    /// Number of incomplete todos on a tab.
    public func openCount(in tab: Tab) -> Int {
        tabs[tab]?.openCount ?? 0
    }

    /// Number of incomplete todos in a list (by its row id) on the current tab.
    public func openCount(inList id: String) -> Int {
        tabs[tab]?.listOpenCounts[id] ?? 0
    }

    /// Number of todos in a list (by its row id), on any tab.
    public func todoCount(inList id: String) -> Int {
        Tab.allCases.reduce(0) { $0 + (tabs[$1]?.count(inList: id) ?? 0) }
    }

    /// Number of steps `u` can undo.
    public var undoDepth: Int { undoStack.count }

    /// Number of steps `U` can redo.
    public var redoDepth: Int { redoStack.count }

    /// Rows available to the list on screen (screen minus header, tab bar and status line).
    public var listHeight: Int { max(1, size.height - 3) }

    // MARK: internal helpers

    /// Finds the selected record again in the new `visible`, keeping its place on screen when `anchor` says.
    mutating func finishRecompute(
        _ data: TabRows, selectedID: String?, oldSelection: Int, hint: Int?, anchor: Int?, holdingScroll: Bool = false
    ) {
        if let selectedID, let found = position(of: selectedID, in: data, hint: hint) {
            selection = found
        } else {
            selection = min(oldSelection, max(0, visible.count - 1))
        }
        if holdingScroll {
            scroll = max(0, min(scroll, visible.count - listHeight))
            rememberSelection()
            return
        }
        if let anchor {
            scroll = selection - anchor
        }
        clampScroll()
        rememberSelection()
    }

    /// Where the record `id` sits in `visible`. `hint` is its row index before the change: when the rows are
    /// the same, `visible` (ascending row indices) is binary-searched instead of comparing ids one by one.
    func position(of id: String, in data: TabRows, hint: Int?) -> Int? {
        let key = RowKey(id)
        if let hint, data.rows.indices.contains(hint), data.rows[hint].key == key {
            var low = 0
            var high = visible.count
            while low < high {
                let middle = (low + high) / 2
                if visible[middle] < hint { low = middle + 1 } else { high = middle }
            }
            return low < visible.count && visible[low] == hint ? low : nil
        }
        return visible.firstIndex { data.rows[$0].key == key }
    }

    mutating func select(_ index: Int) {
        selection = min(max(0, index), max(0, visible.count - 1))
        clampScroll()
        rememberSelection()
    }

    mutating func rememberSelection() {
        selectedIDs[tab] = selectedRow?.id
    }

    /// Whether the selected row is inside the window (a remote edit may have moved it out of sight).
    var isSelectionOnScreen: Bool {
        showsToday || visible.isEmpty || (scroll..<(scroll + listHeight)).contains(selection)
    }

    mutating func clampScroll() {
        let height = listHeight
        if selection < scroll { scroll = selection }
        if selection >= scroll + height { scroll = selection - height + 1 }
        scroll = min(scroll, max(0, visible.count - height))
        scroll = max(0, scroll)
    }

    mutating func pushUndo(_ entry: UndoEntry) {
        redoStack.removeAll()
        undoStack.append(entry)
        if undoStack.count > AppState.undoLimit { undoStack.removeFirst(undoStack.count - AppState.undoLimit) }
    }
}
