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
        /// Create the row again, under a new record name.
        case recreate(TodoRow)
        /// Clear `isTrashed` and show the row again.
        case untrash(TodoRow)
    }

    var label: String
    var action: Action
}

/// The rows of one tab, kept sorted, with their lowercased search text.
///
/// Lists group their todos: todos in no list come first, then each list heading (by title) followed by its
/// todos. Within a group rows keep the display order (`displayOrder`).
struct TabRows: Sendable {
    var rows: [TodoRow] = []
    var searchKeys: [String] = []
    var sortKeys: [String] = []
    /// Per row, the sort key of its group: "" for todos in no list, else derived from the list's title and id.
    var groupKeys: [String] = []
    /// The group key of each list row by id.
    var listGroups: [String: String] = [:]
    /// Per row, whether it is a list heading (read in the filter pass without touching the rows).
    var headings: [Bool] = []
    /// Incomplete todos per list id.
    var listOpenCounts: [String: Int] = [:]
    var openCount = 0

    init(_ unsorted: consuming [TodoRow] = []) {
        var rows = unsorted
        for row in rows where row.isList { listGroups[row.id] = TabRows.groupKey(ofList: row) }
        // Lowercase each title once; sort indices, then permute rows and keys in place (no second copy of the rows).
        var lowered = rows.map { $0.title.lowercased() }
        var groups = rows.map(group(of:))
        var order = Array(rows.indices)
        order.sort { TabRows.precedes(rows[$0], lowered[$0], groups[$0], rows[$1], lowered[$1], groups[$1]) }
        var placed = [Bool](repeating: false, count: order.count)
        TabRows.permute(&rows, by: order, &placed)
        TabRows.permute(&lowered, by: order, &placed)
        TabRows.permute(&groups, by: order, &placed)
        searchKeys = rows.indices.map { rows[$0].notes.isEmpty ? lowered[$0] : TabRows.searchKey(rows[$0], loweredTitle: lowered[$0]) }
        headings = rows.map(\.isList)
        self.rows = rows
        sortKeys = lowered
        groupKeys = groups
        openCount = self.rows.count { !$0.isCompleted && !$0.isList }
        for row in rows where !row.isCompleted && !row.isList {
            if let listID = row.listID { listOpenCounts[listID, default: 0] += 1 }
        }
    }

    /// Rearranges `values` so that position `i` holds what was at `order[i]`, following the permutation's
    /// cycles; `placed` is scratch space of the same length (left all false again).
    static func permute<T>(_ values: inout [T], by order: [Int], _ placed: inout [Bool]) {
        for start in order.indices where !placed[start] {
            var current = start
            var next = order[current]
            if next == start {
                continue
            }
            let first = values[start]
            while next != start {
                values[current] = values[next]
                placed[current] = true
                current = next
                next = order[current]
            }
            values[current] = first
            placed[current] = true
        }
        for index in placed.indices { placed[index] = false }
    }

    /// Whether the tab has any list headings.
    var hasLists: Bool { !listGroups.isEmpty }

    static func groupKey(ofList row: TodoRow) -> String {
        "\u{1}" + row.title.lowercased() + "\u{0}" + row.id
    }

    /// The group a row sorts in.
    func group(of row: TodoRow) -> String {
        if row.isList { return listGroups[row.id] ?? TabRows.groupKey(ofList: row) }
        guard let listID = row.listID else { return "" }
        return listGroups[listID] ?? ""
    }

    /// Group first, the heading before its todos, then the display order.
    static func precedes(_ a: TodoRow, _ aKey: String, _ aGroup: String, _ b: TodoRow, _ bKey: String, _ bGroup: String) -> Bool {
        if aGroup != bGroup { return aGroup < bGroup }
        if a.kind != b.kind { return a.isList }
        return displayOrder(a, aKey, b, bKey)
    }

    static func searchKey(_ row: TodoRow, loweredTitle: String? = nil) -> String {
        let title = loweredTitle ?? row.title.lowercased()
        return row.notes.isEmpty ? title : title + "\n" + row.notes.lowercased()
    }

    func index(of id: String) -> Int? {
        rows.firstIndex { $0.id == id }
    }

    /// Inserts `row` at its sorted position (binary search).
    mutating func insert(_ row: TodoRow) {
        if row.isList {
            // A new or renamed heading regroups its todos: rebuild (lists change rarely).
            self = TabRows(rows.filter { $0.id != row.id } + [row])
            return
        }
        let key = row.title.lowercased()
        let group = group(of: row)
        var low = 0
        var high = rows.count
        while low < high {
            let mid = (low + high) / 2
            if TabRows.precedes(rows[mid], sortKeys[mid], groupKeys[mid], row, key, group) { low = mid + 1 } else { high = mid }
        }
        rows.insert(row, at: low)
        sortKeys.insert(key, at: low)
        groupKeys.insert(group, at: low)
        headings.insert(false, at: low)
        searchKeys.insert(TabRows.searchKey(row), at: low)
        if !row.isCompleted {
            openCount += 1
            if let listID = row.listID { listOpenCounts[listID, default: 0] += 1 }
        }
    }

    @discardableResult
    mutating func remove(id: String) -> TodoRow? {
        guard let index = index(of: id) else { return nil }
        let row = rows[index]
        if row.isList {
            // Its todos go with it (the engine deletes them in the same transaction).
            self = TabRows(rows.filter { $0.id != id && $0.listID != id })
            return row
        }
        rows.remove(at: index)
        sortKeys.remove(at: index)
        groupKeys.remove(at: index)
        headings.remove(at: index)
        searchKeys.remove(at: index)
        if !row.isCompleted {
            openCount -= 1
            if let listID = row.listID { listOpenCounts[listID, default: 1] -= 1 }
        }
        return row
    }

    /// The lists of the tab, in display order.
    var lists: [TodoRow] { rows.filter(\.isList) }

    /// Number of todos in a list.
    func count(inList id: String) -> Int { rows.count { $0.listID == id && !$0.isList } }
}

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
    /// Maximum number of undo steps kept.
    public static let undoLimit = 50

    var tabs: [Tab: TabRows] = [:]
    /// Indices into the current tab's sorted rows that pass the filters, in display order.
    var visible: [Int] = []
    var selectedIDs: [Tab: String] = [:]
    var undoStack: [UndoEntry] = []
    let makeID: @Sendable () -> String

    /// Creates an empty state; `makeID` names new records (UUIDs by default).
    public init(
        status: SyncStatus, size: TerminalSize = TerminalSize(width: 80, height: 24), now: Date = Date(),
        calendar: Calendar = .current, makeID: @escaping @Sendable () -> String = { UUID().uuidString }
    ) {
        self.status = status
        self.size = size
        self.now = now
        self.calendar = calendar
        self.makeID = makeID
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
        // Exact capacities: appending 100,000 rows would otherwise double the arrays' storage on the way.
        var all = rows
        var counts: [Tab: Int] = [:]
        for row in all { counts[Tab(row.scope), default: 0] += 1 }
        var partitions: [Tab: [TodoRow]] = [:]
        if counts.count == 1, let only = counts.keys.first {
            partitions[only] = all
        } else {
            for (tab, count) in counts {
                var part: [TodoRow] = []
                part.reserveCapacity(count)
                partitions[tab] = part
            }
            for row in all { partitions[Tab(row.scope)]?.append(row) }
        }
        all = []
        let anchor = selection - scroll
        tabs.removeAll()  // the old rows go before the new ones are sorted
        visible.removeAll()
        for tab in Tab.allCases { tabs[tab] = TabRows(partitions.removeValue(forKey: tab) ?? []) }
        self.status = status
        if case .share(var dialog) = mode, let list = row(id: dialog.listID) {
            dialog.participants = list.sharing?.participants ?? []
            dialog.selection = min(dialog.selection, max(0, dialog.participants.count - 1))
            if dialog.participants.isEmpty { dialog.focus = .invite }
            mode = .share(dialog)
        }
        recomputeVisible(anchor: anchor)
    }

    /// Replaces the rows of one tab, keeping selection, filter and scroll.
    public mutating func update(rows: [TodoRow], in tab: Tab) {
        let anchor = selection - scroll
        tabs[tab] = TabRows(rows)
        if tab == self.tab { recomputeVisible(anchor: anchor) }
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
    mutating func recomputeVisible(anchor: Int? = nil) {
        let selectedID = selectedIDs[tab]
        let oldSelection = selection
        let data = tabs[tab] ?? TabRows()
        let hint = visible.indices.contains(oldSelection) ? visible[oldSelection] : nil
        let needle = Array(filter.text.lowercased().utf8)
        var result: [Int] = []
        result.reserveCapacity(data.rows.count)
        if !data.hasLists {
            // No headings: only the filters decide, as fast as a scan of the search keys.
            for index in data.searchKeys.indices {
                if !showCompleted, data.rows[index].isCompleted { continue }
                if !needle.isEmpty, !utf8Contains(data.searchKeys[index], needle) { continue }
                result.append(index)
            }
        } else {
            appendVisibleWithHeadings(data, needle, &result)
        }
        visible = result
        finishRecompute(data, selectedID: selectedID, oldSelection: oldSelection, hint: hint, anchor: anchor)
    }

    /// The filter pass of a tab with lists: a heading shows when there is no filter, when it matches, or (just
    /// before it) when one of its todos does.
    private func appendVisibleWithHeadings(_ data: TabRows, _ needle: [UInt8], _ result: inout [Int]) {
        var waitingHeading: Int?
        for index in data.headings.indices {
            if data.headings[index] {
                waitingHeading = nil
                if needle.isEmpty || utf8Contains(data.searchKeys[index], needle) { result.append(index) } else { waitingHeading = index }
                continue
            }
            if !showCompleted, data.rows[index].isCompleted { continue }
            if !needle.isEmpty, !utf8Contains(data.searchKeys[index], needle) { continue }
            if let heading = waitingHeading, data.groupKeys[index] == data.groupKeys[heading] {
                result.append(heading)
                waitingHeading = nil
            }
            result.append(index)
        }
    }

    /// Finds the selected record again in the new `visible`, keeping its place on screen when `anchor` says.
    private mutating func finishRecompute(_ data: TabRows, selectedID: String?, oldSelection: Int, hint: Int?, anchor: Int?) {
        if let selectedID, let found = position(of: selectedID, in: data, hint: hint) {
            selection = found
        } else {
            selection = min(oldSelection, max(0, visible.count - 1))
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
        visible.removeAll { !utf8Contains(data.searchKeys[$0], needle) }
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

    /// Applies an effect to the local rows at once (marked pending), so the screen reflects it
    /// before the sync engine reports back.
    mutating func applyLocally(_ effect: Effect, template: TodoRow? = nil) {
        switch effect {
        case .create(let id, let draft):
            let base = template ?? newRow(id: id, draft: draft)
            var row = base
            row.id = id
            row.title = draft.title
            row.notes = draft.notes
            row.dueDate = draft.dueDate
            row.priority = draft.priority
            row.scope = draft.scope
            row.kind = draft.kind
            row.listID = draft.listID
            row.isPending = true
            tabs[Tab(draft.scope), default: TabRows()].insert(row)
        case .update(let id, let draft):
            modifyRow(id) {
                $0.title = draft.title
                $0.notes = draft.notes
                $0.dueDate = draft.dueDate
                $0.priority = draft.priority
            }
        case .setCompleted(let id, let done):
            modifyRow(id) { $0.isCompleted = done }
        case .delete(let id), .setTrashed(let id, true):
            for tab in Tab.allCases { tabs[tab]?.remove(id: id) }
        case .setTrashed(_, false):
            if let template {
                var row = template
                row.isPending = true
                tabs[Tab(row.scope), default: TabRows()].insert(row)
            }
        case .move(let id, let listID):
            modifyRow(id) { $0.listID = listID }
        case .refresh, .quit, .share, .removeParticipant, .stopSharing, .accept, .decline, .leave:
            break
        }
    }

    private mutating func modifyRow(_ id: String, _ change: (inout TodoRow) -> Void) {
        // Mutate the tab's arrays in place (through the dictionary's modify accessor): copying
        // them out would copy 100,000 rows.
        for tab in Tab.allCases {
            if let data = tabs[tab], let index = data.index(of: id), data.rows[index].isList {
                var rows = data.rows
                change(&rows[index])
                rows[index].isPending = true
                tabs[tab] = TabRows(rows)
                return
            }
            guard var row = tabs[tab]?.remove(id: id) else { continue }
            change(&row)
            row.isPending = true
            tabs[tab]?.insert(row)
            return
        }
    }

    func newRow(id: String, draft: TodoDraft) -> TodoRow {
        let isPublic = draft.scope == .public
        return TodoRow(
            id: id, title: draft.title, notes: draft.notes, dueDate: draft.dueDate, priority: draft.priority,
            scope: draft.scope, canUpdate: true, canDelete: !isPublic,
            trashBehaviour: isPublic ? .markTrashed : .delete, isPending: true, owner: status.account,
            kind: draft.kind, listID: draft.listID
        )
    }

    /// Finds a row by id on any tab.
    func row(id: String) -> TodoRow? {
        for tab in Tab.allCases {
            if let data = tabs[tab], let index = data.index(of: id) { return data.rows[index] }
        }
        return nil
    }
}

/// Whether `haystack` contains the UTF-8 bytes `needle` (both already lowercased): libc's `memchr` finds
/// candidates and `memcmp` checks them, much faster than `String.contains` over 100,000 rows.
func utf8Contains(_ haystack: String, _ needle: [UInt8]) -> Bool {
    guard let first = needle.first else { return true }
    var haystack = haystack
    return haystack.withUTF8 { bytes in
        guard bytes.count >= needle.count, let base = bytes.baseAddress else { return false }
        return needle.withUnsafeBytes { wanted in
            var offset = 0
            let last = bytes.count - needle.count
            while offset <= last {
                guard let hit = memchr(base + offset, Int32(first), last - offset + 1) else { return false }
                let at = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit))
                if let wantedBase = wanted.baseAddress, memcmp(hit, wantedBase, needle.count) == 0 { return true }
                offset = at + 1
            }
            return false
        }
    }
}
