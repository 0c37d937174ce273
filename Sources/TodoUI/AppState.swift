import Foundation
#if canImport(Glibc)
import Glibc
#endif
public import Terminal

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
    }

    var label: String
    var action: Action
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
    /// The filter text (case-insensitive substring of title or notes).
    public internal(set) var filter = LineEditor()
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
    /// Maximum number of undo steps kept.
    public static let undoLimit = 50

    var tabs: [Tab: TabRows] = [:]
    /// Indices into the current tab's sorted rows that pass the filters, in display order.
    var visible: [Int] = []
    var selectedIDs: [Tab: String] = [:]
    var undoStack: [UndoEntry] = []
    let makeID: @Sendable () -> String
    let nameRow: RowNaming

    /// Creates an empty state; `makeID` names new records (UUIDs by default) and `nameRow` makes that name the id the
    /// sync layer will report the record under (the name itself by default).
    public init(
        status: SyncStatus, size: TerminalSize = TerminalSize(width: 80, height: 24), now: Date = Date(),
        calendar: Calendar = Formatting.isoCalendar, makeID: @escaping @Sendable () -> String = { UUID().uuidString },
        nameRow: @escaping RowNaming = { name, _, _ in name }
    ) {
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

    /// The selected row, if the list is not empty.
    public var selectedRow: TodoRow? {
        visible.indices.contains(selection) ? visibleRow(at: selection) : nil
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

    /// Rows available to the list on screen (screen minus header, tab bar and status line).
    public var listHeight: Int { max(1, size.height - 3) }

    // MARK: input from the sync engine and the terminal

    /// Replaces every tab's rows (partitioned by scope) and the status, keeping the selection on
    /// the same record, the filter and the scroll offset.
    public mutating func update(rows: consuming [TodoRow], status: SyncStatus) {
        var partitions = Self.partition(consume rows)
        let anchor = selection - scroll
        tabs.removeAll()  // the old rows go before the new ones are sorted
        visible.removeAll()
        for tab in Tab.allCases { tabs[tab] = TabRows(partitions.removeValue(forKey: tab) ?? []) }
        finishUpdate(status: status, anchor: anchor, reloading: true)
    }

    /// Applies what changed since the last update (tabs of reloaded scopes are replaced, other rows are
    /// replaced or removed one by one) and the status, keeping the selection, the filter and the scroll offset.
    public mutating func apply(_ update: consuming RowChanges, status: SyncStatus) {
        let anchor = selection - scroll
        var changes = consume update
        let rows = changes.rows
        changes.rows = []
        var incoming = Self.partition(consume rows)
        let removed = Set(changes.removed)
        for tab in Tab.allCases {
            let starts = changes.reloaded.contains(tab.scope)
            let finishes = changes.reloadFinished.contains(tab.scope)
            if starts && finishes {
                // Read again in one update: these rows are all.
                tabs[tab] = nil  // the old rows go before the new ones are sorted
                tabs[tab] = TabRows(incoming.removeValue(forKey: tab) ?? [])
                continue
            }
            let changed = incoming.removeValue(forKey: tab) ?? []
            guard var data = tabs.removeValue(forKey: tab) else {
                if !changed.isEmpty { tabs[tab] = TabRows(changed) }
                continue
            }
            // Read again in chunks: the rows stay until replaced, and the unconfirmed ones go at the end.
            if starts { data.markAllStale() }
            var dropped = removed
            for row in changed { dropped.insert(row.id) }
            if changed.count >= data.rows.count || changed.contains(where: \.isList)
                || dropped.contains(where: { data.listGroups[$0] != nil })
            {
                // More rows arrive than are held (the cache read in chunks), or lists regroup their todos (lists
                // change rarely): sorting everything again costs less than merging.
                var rows = data.rows
                data = TabRows()
                rows.removeAll { dropped.contains($0.id) }
                rows.append(contentsOf: changed)
                data = TabRows(rows)
            } else if dropped.count + changed.count > 16 {
                data.merge(dropping: dropped, adding: changed)
            } else {
                for id in dropped { data.remove(id: id) }
                for row in changed { data.insert(row) }
            }
            if finishes { data.removeStale() }
            tabs[tab] = data
        }
        finishUpdate(status: status, anchor: anchor, reloading: !changes.reloaded.isEmpty)
    }

    /// Rows by tab. Exact capacities, and no copy at all when every row belongs to one tab: 100,000 rows appended
    /// one by one would double their arrays' storage on the way.
    private static func partition(_ rows: consuming [TodoRow]) -> [Tab: [TodoRow]] {
        var all = rows
        var counts: [Tab: Int] = [:]
        for row in all { counts[Tab(row.scope), default: 0] += 1 }
        var partitions: [Tab: [TodoRow]] = [:]
        if counts.count == 1, let only = counts.keys.first {
            partitions[only] = consume all
            return partitions
        }
        for (tab, count) in counts {
            var part: [TodoRow] = []
            part.reserveCapacity(count)
            partitions[tab] = part
        }
        for row in all { partitions[Tab(row.scope)]?.append(row) }
        all = []
        return partitions
    }

    /// The end of every data update: the status, the share dialog's people, the visible rows.
    ///
    /// Changes from elsewhere never move the view: the scroll position stays and the selection stays on its record,
    /// even when a remote edit moved that record out of sight (the position in the status line says where; the next
    /// key brings it back). Only a scope read again in chunks, and the cache read for the first frames, keep the
    /// selected record on its screen line instead, since then every row may be new.
    private mutating func finishUpdate(status: SyncStatus, anchor: Int, reloading: Bool = false) {
        self.status = status
        if case .edit(var form) = mode, let id = form.targetID {
            if let current = row(id: id) {
                form.noteUnderneath(current.draft, calendar: calendar)
            } else {
                form.underneath = "trashed on another device; saving brings it back"
            }
            mode = .edit(form)
        }
        if case .share(var dialog) = mode, let list = row(id: dialog.listID) {
            dialog.participants = list.sharing?.participants ?? []
            dialog.selection = min(dialog.selection, max(0, dialog.participants.count - 1))
            if dialog.participants.isEmpty { dialog.focus = .invite }
            mode = .share(dialog)
        }
        if reloading || loading != nil { recomputeVisible(anchor: anchor) } else { recomputeVisible(holdingScroll: true) }
        if loading != nil, !keyPressedWhileLoading {
            // Nobody chose a row yet: the list shows its top while the rest of it arrives.
            scroll = 0
            select(0)
        }
    }

    /// Replaces the rows of one tab, keeping selection, filter and scroll.
    public mutating func update(rows: [TodoRow], in tab: Tab) {
        let anchor = selection - scroll
        tabs[tab] = TabRows(rows)
        if tab == self.tab { recomputeVisible(anchor: anchor) }
    }

    /// Says how far reading the cache got (nil: done), for the header and the empty list.
    public mutating func showLoading(_ progress: FetchProgress?) {
        loading = progress
        if progress == nil { keyPressedWhileLoading = false }
    }

    /// Replaces the sync status only.
    public mutating func update(status: SyncStatus) {
        self.status = status
    }

    /// Lays the state out for a new terminal size, keeping the selection visible.
    public mutating func resize(to size: TerminalSize) {
        self.size = size
        clampScroll()
    }

    /// Shows a message in the status line (e.g. an effect failed).
    public mutating func post(_ message: StatusMessage) {
        self.message = message
    }

    // MARK: internal helpers

    /// Rebuilds `visible` for the current tab and filters, and finds the selected record again.
    mutating func recomputeVisible(anchor: Int? = nil, holdingScroll: Bool = false) {
        let selectedID = selectedIDs[tab]
        let oldSelection = selection
        let data = tabs[tab] ?? TabRows()
        let hint = visible.indices.contains(oldSelection) ? visible[oldSelection] : nil
        let needle = Array(filter.text.lowercased().utf8)
        let matches = data.search.rows(containing: needle)
        var result: [Int] = []
        if !data.hasLists {
            // No headings: only the filters decide.
            result = showCompleted ? matches : matches.filter { !data.rows[$0].isCompleted }
        } else {
            appendVisibleWithHeadings(data, matches, needle, &result)
        }
        visible = result
        finishRecompute(data, selectedID: selectedID, oldSelection: oldSelection, hint: hint, anchor: anchor, holdingScroll: holdingScroll)
    }

    /// The filter pass of a tab with lists: a heading shows when there is no filter, when it matches, or (just
    /// before it) when one of its todos does. `matches` are the rows whose text contains `needle`, ascending.
    private func appendVisibleWithHeadings(_ data: TabRows, _ matches: [Int], _ needle: [UInt8], _ result: inout [Int]) {
        result.reserveCapacity(matches.count)
        var waitingHeading: Int?
        var nextMatch = 0
        for index in data.headings.indices {
            while nextMatch < matches.count && matches[nextMatch] < index { nextMatch += 1 }
            let matched = nextMatch < matches.count && matches[nextMatch] == index
            if data.headings[index] {
                waitingHeading = nil
                if needle.isEmpty || matched { result.append(index) } else { waitingHeading = index }
                continue
            }
            if !showCompleted, data.rows[index].isCompleted { continue }
            if !matched { continue }
            if let heading = waitingHeading, data.rows[index].listID == data.rows[heading].id {
                result.append(heading)
                waitingHeading = nil
            }
            result.append(index)
        }
    }

    /// Finds the selected record again in the new `visible`, keeping its place on screen when `anchor` says.
    private mutating func finishRecompute(
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

    /// Keeps only the listed rows that still match the (longer) filter.
    mutating func narrowVisible() {
        guard let data = tabs[tab] else { return }
        if data.hasLists {
            recomputeVisible()
            return
        }
        let needle = Array(filter.text.lowercased().utf8)
        let selectedID = selectedIDs[tab]
        let hint = visible.indices.contains(selection) ? visible[selection] : nil
        visible.removeAll { !data.search.row($0, contains: needle) }
        if let selectedID, let found = position(of: selectedID, in: data, hint: hint) {
            selection = found
        } else {
            selection = min(selection, max(0, visible.count - 1))
        }
        clampScroll()
        rememberSelection()
    }

    /// Where the record `id` sits in `visible`. `hint` is its row index before the change: when the rows are
    /// the same, `visible` (ascending row indices) is binary-searched instead of comparing ids one by one.
    func position(of id: String, in data: TabRows, hint: Int?) -> Int? {
        if let hint, data.rows.indices.contains(hint), data.rows[hint].id == id {
            var low = 0
            var high = visible.count
            while low < high {
                let middle = (low + high) / 2
                if visible[middle] < hint { low = middle + 1 } else { high = middle }
            }
            return low < visible.count && visible[low] == hint ? low : nil
        }
        return visible.firstIndex { data.rows[$0].id == id }
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
    var isSelectionOnScreen: Bool { visible.isEmpty || (scroll..<(scroll + listHeight)).contains(selection) }

    mutating func clampScroll() {
        let height = listHeight
        if selection < scroll { scroll = selection }
        if selection >= scroll + height { scroll = selection - height + 1 }
        scroll = min(scroll, max(0, visible.count - height))
        scroll = max(0, scroll)
    }

    mutating func pushUndo(_ entry: UndoEntry) {
        undoStack.append(entry)
        if undoStack.count > AppState.undoLimit { undoStack.removeFirst(undoStack.count - AppState.undoLimit) }
    }
}
