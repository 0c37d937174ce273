import Foundation
public import Terminal

/// Glyphs of the list rows; every one is one or two columns wide in every terminal.
public enum RowGlyphs {
    /// Marker of the selected row (also drawn in reverse video).
    public static let selected = ">"
    /// Open checkbox.
    public static let open = "[ ]"
    /// Done checkbox.
    public static let done = "[x]"
    /// Rows the user may not change ("read-only"; two ASCII columns, safe everywhere).
    public static let locked = "RO"
    /// Rows waiting in the outbox.
    public static let pending = "•"
    /// Todos that repeat (one column everywhere a UTF-8 terminal is, which the app requires).
    public static let repeating = "↻"
    /// Todos being worked on (`todo start`).
    public static let active = "(active)"
    /// Todos hidden until a wait date, shown by an is:waiting filter.
    public static let waiting = "(waiting)"
    /// Rows marked for a bulk action (in the selection column).
    public static let marked = "*"
}

/// Draws `state` into `screen` (all of it: header, tabs, list or overlay, status line).
///
/// Only the rows in view are touched, so a frame costs the same with 10 or 100,000 todos.
/// Every string goes through `sanitize` (via `Screen.put`).
public func render(_ state: AppState, into screen: inout Screen) {
    screen.clear()
    Renderer(state: state).draw(into: &screen)
}

extension AppState {
    /// Renders the state into a new screen of its current size.
    public func rendered() -> Screen {
        var screen = Screen(width: size.width, height: size.height)
        render(self, into: &screen)
        return screen
    }

    /// The lines of the help overlay: every binding of the state's keymap that has a key, then the fixed keys.
    var helpLines: [(keys: String, description: String)] {
        var lines = keymap.bindings.filter { !$0.keys.isEmpty }.map { (keys: $0.keyLabel, description: $0.description) }
        lines.append((keys: "", description: ""))
        lines.append((keys: "Questions", description: ""))
        lines.append(contentsOf: keymap.questionRule)
        lines.append((keys: "", description: ""))
        lines.append((keys: "Marked todos" + keyNote(.mark), description: ""))
        lines.append(contentsOf: keymap.bulkKeys)
        lines.append((keys: "", description: ""))
        lines.append((keys: "Details" + keyNote(.details), description: ""))
        lines.append(contentsOf: Keymap.detailKeys)
        lines.append((keys: "", description: ""))
        lines.append((keys: "Filter" + keyNote(.filter), description: ""))
        lines.append(contentsOf: Keymap.filterSyntax)
        lines.append((keys: "", description: ""))
        lines.append((keys: "Edit form", description: ""))
        lines.append(contentsOf: Keymap.editorKeys)
        return lines
    }
}

struct Renderer {
    let state: AppState

    func draw(into screen: inout Screen) {
        guard screen.width > 0, screen.height > 0 else { return }
        drawHeader(&screen)
        guard screen.height >= 3 else { return }
        drawTabBar(&screen, row: 1)
        let listTop = 2
        let listHeight = max(0, screen.height - 3)
        switch state.mode {
        case .edit(let form):
            drawForm(form, &screen, top: listTop, height: listHeight)
        case .help:
            drawHelp(&screen, top: listTop, height: listHeight)
        case .pickList(let picker):
            drawPicker(picker, &screen, top: listTop, height: listHeight)
        case .share(let dialog):
            drawShare(dialog, &screen, top: listTop, height: listHeight)
        case .invitations(let selection):
            drawInvitations(selection: selection, &screen, top: listTop, height: listHeight)
        case .detail(let view):
            drawDetail(view, &screen, top: listTop, height: listHeight)
        case .calendar(let view):
            drawCalendar(view, &screen, top: listTop, height: listHeight)
        case .prompt(let prompt):
            if case .annotate(let id) = prompt.purpose {
                drawDetail(DetailView(id: id), &screen, top: listTop, height: listHeight)
            } else {
                drawList(&screen, top: listTop, height: listHeight)
            }
        default:
            drawList(&screen, top: listTop, height: listHeight)
        }
        drawStatusLine(&screen, row: screen.height - 1)
    }

    // MARK: header and tabs

    func drawHeader(_ screen: inout Screen) {
        let status = state.status
        // Parts that may be dropped when the line is too wide, in that order.
        let app = "CloudTodo"
        let account = status.account
        let device = status.device
        var segments: [(String, Style)] = [(app, Style(bold: true, color: .accent))]
        if let account { segments.append((account, .plain)) }
        segments.append((device, .plain))
        switch status.connection {
        case .online: segments.append(("online", Style(color: .success)))
        case .offline: segments.append(("offline", Style(bold: true, color: .warning)))
        case .signedOut:
            let what = status.signingIn ? "signing in…" : status.sessionEnded ? "session ended" : "signed out"
            let way = status.signingIn ? "" : state.keyed(.signIn) { ": press \($0) to sign in" }
            segments.append((what + way, Style(bold: true, color: .warning)))
        case .connecting: segments.append(("connecting", Style(color: .muted)))
        }
        if let context = state.context { segments.append(("context \(context.name)", Style(bold: true, color: .accent))) }
        if !status.invitations.isEmpty {
            segments.append((Formatting.counted(status.invitations.count, "invitation") + state.keyNote(.invitations), Style(bold: true, color: .accent)))
        }
        if status.pendingCount > 0 {
            segments.append(("\(Formatting.grouped(status.pendingCount)) pending", Style(color: .warning)))
        }
        if let loading = state.loading {
            let total = loading.total.map { " of \(Formatting.grouped($0))" } ?? ""
            segments.append(("loading \(Formatting.grouped(loading.fetched))\(total)", Style(color: .accent)))
        } else if let progress = status.progress {
            let total = progress.total.map { " of \(Formatting.grouped($0))" } ?? ""
            segments.append(("fetching \(Formatting.grouped(progress.fetched))\(total)", Style(color: .accent)))
        } else if let lastSync = status.lastSync {
            segments.append(("synced \(Formatting.ago(lastSync, now: state.now))", .muted))
        } else if status.connection == .online {
            segments.append(("not synced yet", .muted))
        }
        let separator = " · "
        func width(_ segments: [(String, Style)]) -> Int {
            segments.reduce(0) { $0 + displayWidth($1.0) } + max(0, segments.count - 1) * separator.count
        }
        for name in [app, device, account] {
            guard width(segments) > screen.width, segments.count > 1, let name,
                let index = segments.firstIndex(where: { $0.0 == name })
            else { continue }
            segments.remove(at: index)
        }
        var col = 0
        for (index, segment) in segments.enumerated() {
            if index > 0 { col += screen.put(separator, row: 0, col: col, style: .muted) }
            let text = truncated(sanitize(segment.0), toWidth: screen.width - col)
            col += screen.put(text, row: 0, col: col, style: segment.1)
            if col >= screen.width { break }
        }
    }

    func drawTabBar(_ screen: inout Screen, row: Int) {
        var col = 0
        for tab in Tab.allCases {
            let label = "\(tab.title) \(Formatting.grouped(state.openCount(in: tab)))"
            if tab == state.tab {
                col += screen.put("[\(label)]", row: row, col: col, style: Style(bold: true, reverse: true, color: .accent))
            } else {
                col += screen.put(" \(label) ", row: row, col: col, style: .plain)
            }
            col += screen.put(" ", row: row, col: col)
        }
        // The Today view sits beside the tabs: T shows it.
        if state.showsToday {
            let name = state.agendaKind == .next ? "Next" : "Today"
            col += screen.put("[\(name) \(Formatting.grouped(state.agendaTodoCount))]", row: row, col: col, style: Style(bold: true, reverse: true, color: .accent))
        } else {
            col += screen.put(state.keyed(.today, otherwise: " Today ") { " \($0) Today " }, row: row, col: col, style: .muted)
        }
        var notes: [String] = []
        if !state.appliedFilterText.isEmpty, state.mode != .filter {
            let name = state.savedFilters.first { $0.text == state.appliedFilterText }?.name
            notes.append(name.map { "filter \($0)" } ?? "filter: \(state.appliedFilterText)")
        }
        if state.sortOrder != .priority, !state.showsToday { notes.append(state.sortOrder.label) }
        if !state.showCompleted, !state.showsToday { notes.append("completed hidden") }
        guard !notes.isEmpty else { return }
        let right = notes.joined(separator: " · ")
        let room = screen.width - col - 1
        guard room > 3 else { return }
        let text = truncated(sanitize(right), toWidth: room)
        screen.put(text, row: row, col: screen.width - displayWidth(text), style: .muted)
    }

    // MARK: the list

    func drawList(_ screen: inout Screen, top: Int, height: Int) {
        guard height > 0 else { return }
        if state.showsToday {
            drawAgenda(&screen, top: top, height: height)
            return
        }
        if state.visibleCount == 0 {
            drawEmptyState(&screen, top: top, height: height)
            return
        }
        let layout = RowLayout(width: screen.width)
        let end = min(state.visibleCount, state.scroll + height)
        for index in state.scroll..<end {
            drawRow(state.visibleRow(at: index), selected: index == state.selection, layout: layout, &screen, row: top + index - state.scroll)
        }
    }

    func drawListHeading(_ list: TodoRow, selected: Bool, _ screen: inout Screen, row: Int) {
        if selected { screen.put(RowGlyphs.selected, row: row, col: 0, style: Style(bold: true, color: .accent)) }
        let open = state.openCount(inList: list.id)
        var col = 1 + screen.put(sanitize(list.title), row: row, col: 1, style: Style(bold: true, color: .accent), maxWidth: screen.width - 8)
        var details = ["\(Formatting.grouped(open)) open"]
        if let summary = list.sharing?.summary, !summary.isEmpty { details.append(summary) }
        let detail = " · " + details.joined(separator: " · ")
        col += screen.put(truncated(sanitize(detail), toWidth: max(0, screen.width - col - 4)), row: row, col: col, style: .muted)
        let right = screen.width - 3
        if list.isPending { screen.put(RowGlyphs.pending, row: row, col: right, style: Style(color: .accent)) }
        if !list.canAddItems { screen.put(RowGlyphs.locked, row: row, col: right + 1, style: Style(dim: true, color: .muted)) }
        if selected { screen.restyle(row: row) { $0.reverse = true } }
    }

    func drawRow(_ todo: TodoRow, selected: Bool, layout: RowLayout, _ screen: inout Screen, row: Int) {
        if todo.isList {
            drawListHeading(todo, selected: selected, &screen, row: row)
            return
        }
        let locked = !todo.canUpdate
        let base = (locked || todo.isCompleted) ? Style(dim: true) : Style.plain
        let urgency = todo.isCompleted ? nil : todo.due.map { Formatting.urgency(of: $0, now: state.now, calendar: state.calendar) }
        if state.marked.contains(todo.id) {
            screen.put(RowGlyphs.marked, row: row, col: 0, style: Style(bold: true, color: .accent))
        } else if selected {
            screen.put(RowGlyphs.selected, row: row, col: 0, style: Style(bold: true, color: .accent))
        }
        screen.put(todo.isCompleted ? RowGlyphs.done : RowGlyphs.open, row: row, col: 1, style: base)
        drawTitle(todo, urgency: urgency, base: base, layout: layout, &screen, row: row)
        var col = layout.titleColumn + layout.titleWidth + 1
        let marker = String(repeating: "!", count: todo.priority)
        let priorityStyle = todo.priority >= 3 ? Style(bold: true, color: .error) : Style(color: .warning)
        screen.put(padded(marker, toWidth: 3, alignRight: true), row: row, col: col, style: todo.isCompleted ? base : priorityStyle)
        col += 4
        if layout.showsDue {
            if let due = todo.due {
                // A timed date this week ("today 09:30") may take the column before it.
                let text = Formatting.due(due, now: state.now, calendar: state.calendar)
                let width = displayWidth(text) > 10 ? 11 : 10
                screen.put(padded(text, toWidth: width, alignRight: true), row: row, col: col + 10 - width, style: Self.dueStyle(urgency, base: base))
            }
            col += 11
        }
        if todo.isPending { screen.put(RowGlyphs.pending, row: row, col: col, style: Style(color: .accent)) }
        col += 1
        if locked { screen.put(RowGlyphs.locked, row: row, col: col, style: Style(dim: true, color: .muted)) }
        if selected { screen.restyle(row: row) { $0.reverse = true } }
    }

    /// Overdue in its role's colour (red) and bold, today in its own (cyan) and bold; without colours (NO_COLOR)
    /// the terminal draws overdue as bold underlined and today as bold, so the two still differ.
    static func dueStyle(_ urgency: DueUrgency?, base: Style) -> Style {
        switch urgency {
        case .overdue?: Style(bold: true, color: .overdue)
        case .today?: Style(bold: true, color: .today)
        default: base
        }
    }

    /// The title, then the repeat mark and the tags (`+tag`, dim in the tag colour) in the title column; the title keeps at least
    /// half of the column.
    func drawTitle(_ todo: TodoRow, urgency: DueUrgency?, base: Style, layout: RowLayout, _ screen: inout Screen, row: Int) {
        let titleStyle = urgency == .today ? Style(bold: base.dim ? false : true, dim: base.dim) : base
        var suffix: [(String, Style)] = []
        if todo.isRepeating { suffix.append((" " + RowGlyphs.repeating, Style(dim: base.dim, color: .accent))) }
        if todo.start != nil { suffix.append((" " + RowGlyphs.active, Style(bold: true, dim: base.dim, color: .accent))) }
        if let wait = todo.wait, wait > state.now { suffix.append((" " + RowGlyphs.waiting, Style(dim: true))) }
        if !todo.depends.isEmpty, !todo.isCompleted {
            // What blocks it, as `todo list` says it: an open blocker the app holds (done, trashed or gone: nothing).
            let blockers = state.openBlockers(of: todo)
            if let first = blockers.first {
                let more = blockers.count > 1 ? " +\(blockers.count - 1)" : ""
                suffix.append((" (blocked by " + truncated(sanitize(first.title), toWidth: 20) + more + ")", Style(dim: true, color: .warning)))
            }
        }
        for tag in todo.tags { suffix.append((" +" + sanitize(tag), Style(dim: true, color: .tag))) }
        guard !suffix.isEmpty else {
            let title = padded(sanitize(todo.title), toWidth: layout.titleWidth)
            screen.put(title, row: row, col: layout.titleColumn, style: titleStyle, maxWidth: layout.titleWidth)
            return
        }
        let suffixWidth = suffix.reduce(0) { $0 + displayWidth($1.0) }
        let room = max(layout.titleWidth / 2, layout.titleWidth - suffixWidth)
        let title = truncated(sanitize(todo.title), toWidth: room)
        var col = layout.titleColumn + screen.put(title, row: row, col: layout.titleColumn, style: titleStyle, maxWidth: room)
        let end = layout.titleColumn + layout.titleWidth
        for (text, style) in suffix where col < end {
            let piece = truncated(text, toWidth: end - col)
            col += screen.put(piece, row: row, col: col, style: style, maxWidth: end - col)
        }
    }

    func drawEmptyState(_ screen: inout Screen, top: Int, height: Int) {
        let hasRows = !state.rows(in: state.tab).isEmpty
        var lines: [String]
        if !state.appliedFilterText.isEmpty, hasRows {
            lines = ["Nothing matches '\(state.appliedFilterText)'.", state.mode == .filter ? "Esc clears the filter." : "Press / then Esc to clear the filter."]
        } else if hasRows, !state.showCompleted {
            lines = ["All done. Press c to show completed todos."]
        } else {
            switch state.tab {
            case _ where state.loading != nil:
                lines = ["Loading…"]
            case .todos where state.status.isSignedOut:
                lines = ["Signed out: this device holds no todos of yours yet.", state.keyed(.signIn, otherwise: "Sign in to sync them.") { "Press \($0) to sign in." }]
            case .todos:
                lines = [state.keyed(.add, otherwise: "No todos") { "No todos — press \($0) to add one" }]
            case .shared where state.status.isSignedOut:
                lines = ["Signed out: this device holds no list shared with you.", state.keyed(.signIn, otherwise: "Sign in to sync them.") { "Press \($0) to sign in." }]
            case .shared where !state.status.invitations.isEmpty:
                lines = [
                    "Lists others share with you appear here.",
                    "You have \(Formatting.counted(state.status.invitations.count, "invitation"))" + state.keyed(.invitations, otherwise: ".") { ": press \($0) to accept." },
                ]
            case .shared:
                lines = [
                    "Lists others share with you appear here.",
                    "When someone shares a list with you, accept it" + state.keyed(.invitations, otherwise: ".") { " with \($0)." },
                    "Share your own lists" + state.keyed(.share, otherwise: " on the Todos tab.") { " with \($0) on the Todos tab." },
                ]
            case .public where state.status.isSignedOut:
                lines = ["The public board is empty.", "Sign in to post on it."]
            case .public:
                lines = [state.keyed(.add, otherwise: "The public board is empty.") { "The public board is empty — press \($0) to post a todo." }]
            }
        }
        for (offset, line) in lines.enumerated() where offset + 1 < height {
            screen.put(truncated(sanitize(line), toWidth: screen.width - 2), row: top + 1 + offset, col: 2, style: .muted)
        }
    }

}

/// Column layout of a list row for a given width.
struct RowLayout {
    let titleColumn = 5
    let titleWidth: Int
    let showsDue: Bool

    init(width: Int) {
        showsDue = width >= 40
        // " !!! " + due (10 + 1) + pending (1) + lock (2)
        let right = 4 + (showsDue ? 11 : 0) + 3
        titleWidth = max(1, width - titleColumn - right - 1)
    }
}
