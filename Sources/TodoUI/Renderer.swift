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

    /// The lines of the help overlay: every binding of the keymap, then the form's editor keys.
    var helpLines: [(keys: String, description: String)] {
        var lines = Keymap.bindings.map { (keys: $0.keyLabel, description: $0.description) }
        lines.append((keys: "", description: ""))
        lines.append((keys: "Questions", description: ""))
        lines.append(contentsOf: Keymap.questionRule)
        lines.append((keys: "", description: ""))
        lines.append((keys: "Edit form", description: ""))
        lines.append(contentsOf: Keymap.editorKeys)
        return lines
    }
}

private struct Renderer {
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
        case .signedOut: segments.append(("signed out", Style(bold: true, color: .warning)))
        case .connecting: segments.append(("connecting", Style(color: .muted)))
        }
        if !status.invitations.isEmpty {
            segments.append(("\(Formatting.counted(status.invitations.count, "invitation")) (i)", Style(bold: true, color: .accent)))
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
        var notes: [String] = []
        if !state.filter.text.isEmpty, state.mode != .filter { notes.append("filter: \(state.filter.text)") }
        if !state.showCompleted { notes.append("completed hidden") }
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
        if selected { screen.put(RowGlyphs.selected, row: row, col: 0, style: Style(bold: true, color: .accent)) }
        screen.put(todo.isCompleted ? RowGlyphs.done : RowGlyphs.open, row: row, col: 1, style: base)
        let title = padded(sanitize(todo.title), toWidth: layout.titleWidth)
        screen.put(title, row: row, col: layout.titleColumn, style: base, maxWidth: layout.titleWidth)
        var col = layout.titleColumn + layout.titleWidth + 1
        let marker = String(repeating: "!", count: todo.priority)
        let priorityStyle = todo.priority >= 3 ? Style(bold: true, color: .error) : Style(color: .warning)
        screen.put(padded(marker, toWidth: 3, alignRight: true), row: row, col: col, style: todo.isCompleted ? base : priorityStyle)
        col += 4
        if layout.showsDue {
            if let due = todo.dueDate {
                let overdue = !todo.isCompleted && due < state.calendar.startOfDay(for: state.now)
                let text = padded(Formatting.day(due, calendar: state.calendar), toWidth: 10, alignRight: true)
                screen.put(text, row: row, col: col, style: overdue ? Style(bold: true, color: .warning) : base)
            }
            col += 11
        }
        if todo.isPending { screen.put(RowGlyphs.pending, row: row, col: col, style: Style(color: .accent)) }
        col += 1
        if locked { screen.put(RowGlyphs.locked, row: row, col: col, style: Style(dim: true, color: .muted)) }
        if selected { screen.restyle(row: row) { $0.reverse = true } }
    }

    func drawEmptyState(_ screen: inout Screen, top: Int, height: Int) {
        let hasRows = !state.rows(in: state.tab).isEmpty
        var lines: [String]
        if !state.filter.text.isEmpty, hasRows {
            lines = ["Nothing matches '\(state.filter.text)'.", state.mode == .filter ? "Esc clears the filter." : "Press / then Esc to clear the filter."]
        } else if hasRows, !state.showCompleted {
            lines = ["All done. Press c to show completed todos."]
        } else {
            switch state.tab {
            case _ where state.loading != nil:
                lines = ["Loading…"]
            case .todos where state.status.isSignedOut:
                lines = ["Signed out: your private todos are unavailable.", "Sign in to sync them; the Public tab stays readable."]
            case .todos:
                lines = ["No todos — press a to add one"]
            case .shared where state.status.isSignedOut:
                lines = ["Signed out: lists shared with you are unavailable."]
            case .shared where !state.status.invitations.isEmpty:
                lines = [
                    "Lists others share with you appear here.",
                    "You have \(Formatting.counted(state.status.invitations.count, "invitation")): press i to accept.",
                ]
            case .shared:
                lines = [
                    "Lists others share with you appear here.",
                    "When someone shares a list with you, accept it with i.",
                    "Share your own lists with s on the Todos tab.",
                ]
            case .public where state.status.isSignedOut:
                lines = ["The public board is empty.", "Sign in to post on it."]
            case .public:
                lines = ["The public board is empty — press a to post a todo."]
            }
        }
        for (offset, line) in lines.enumerated() where offset + 1 < height {
            screen.put(truncated(sanitize(line), toWidth: screen.width - 2), row: top + 1 + offset, col: 2, style: .muted)
        }
    }

    // MARK: overlays

    func drawHelp(_ screen: inout Screen, top: Int, height: Int) {
        guard height > 0 else { return }
        screen.put("Keys", row: top, col: 1, style: Style(bold: true, color: .accent))
        let lines = state.helpLines
        let keyWidth = min(22, lines.map { displayWidth($0.keys) }.max() ?? 0)
        let start = min(state.helpScroll, max(0, lines.count - (height - 1)))
        for (offset, line) in lines.dropFirst(start).prefix(height - 1).enumerated() {
            let row = top + 1 + offset
            if line.description.isEmpty {
                screen.put(line.keys, row: row, col: 1, style: Style(bold: true))
                continue
            }
            screen.put(padded(line.keys, toWidth: keyWidth), row: row, col: 2, style: Style(bold: true))
            screen.put(truncated(line.description, toWidth: screen.width - keyWidth - 5), row: row, col: keyWidth + 4)
        }
    }

    func drawForm(_ form: EditForm, _ screen: inout Screen, top: Int, height: Int) {
        guard height > 0 else { return }
        let spacious = height >= 9
        var row = top
        let noun = form.kind == .list ? "list" : "todo"
        var heading = form.targetID == nil ? "New \(noun) · \(Tab(form.scope).title)" : (form.kind == .list ? "Rename list" : "Edit todo")
        if form.targetID == nil, let listTitle = form.listTitle { heading += " › " + sanitize(listTitle) }
        screen.put(heading, row: row, col: 1, style: Style(bold: true, color: .accent))
        row += spacious ? 2 : 1
        let labelWidth = 9
        let fieldColumn = labelWidth + 2
        let fieldWidth = max(2, screen.width - fieldColumn - 1)
        for field in form.fields where row < top + height {
            let focused = field == form.focus
            if focused { screen.put(">", row: row, col: 0, style: Style(bold: true, color: .accent)) }
            screen.put(padded(field.label, toWidth: labelWidth, alignRight: true), row: row, col: 1, style: focused ? .bold : .plain)
            let (text, cursor) = form[field].visible(width: fieldWidth)
            screen.fill(row: row, col: fieldColumn, count: fieldWidth, style: Style(underline: true))
            screen.put(text, row: row, col: fieldColumn, style: Style(underline: true), maxWidth: fieldWidth)
            if focused {
                screen.cursor = Position(row: row, col: fieldColumn + cursor)
                screen.restyle(row: row, col: fieldColumn + cursor, count: 1) { $0.reverse = true }
            }
            row += 1
        }
        if spacious { row += 1 }
        if row < top + height, form.kind == .todo {
            screen.put(truncated("Due: YYYY-MM-DD, today, tomorrow, +3d · Priority: 0–3", toWidth: screen.width - 2), row: row, col: 1, style: .muted)
            row += 1
        }
        if let underneath = form.underneath, row < top + height {
            screen.put(truncated(sanitize(underneath), toWidth: screen.width - 2), row: row, col: 1, style: .warning)
            row += 1
        }
        if let error = form.error, row < top + height {
            screen.put(truncated(sanitize(error), toWidth: screen.width - 2), row: row, col: 1, style: .error)
        }
    }

    func drawPicker(_ picker: ListPicker, _ screen: inout Screen, top: Int, height: Int) {
        guard height > 0 else { return }
        screen.put(truncated("Move '" + sanitize(picker.todoTitle) + "' to", toWidth: screen.width - 2), row: top, col: 1, style: Style(bold: true, color: .accent))
        let room = max(0, height - 2)
        let start = max(0, min(picker.selection - room + 1, picker.options.count - room))
        for (offset, option) in picker.options.dropFirst(start).prefix(room).enumerated() {
            let row = top + 2 + offset
            let index = start + offset
            var text = sanitize(option.title)
            if let owner = option.owner { text += " · " + sanitize(owner) + "'s" }
            screen.put(truncated(text, toWidth: screen.width - 4), row: row, col: 3, style: option.listID == nil ? .muted : .plain)
            if index == picker.selection {
                screen.put(RowGlyphs.selected, row: row, col: 1, style: Style(bold: true, color: .accent))
                screen.restyle(row: row) { $0.reverse = true }
            }
        }
    }

    func drawShare(_ dialog: ShareDialog, _ screen: inout Screen, top: Int, height: Int) {
        guard height > 0 else { return }
        var row = top
        screen.put(truncated("Share '" + sanitize(dialog.listTitle) + "'", toWidth: screen.width - 2), row: row, col: 1, style: Style(bold: true, color: .accent))
        row += 2
        guard row < top + height else { return }
        let labelWidth = 8
        let fieldColumn = labelWidth + 2
        let fieldWidth = max(2, screen.width - fieldColumn - 1)
        if dialog.focus == .invite { screen.put(">", row: row, col: 0, style: Style(bold: true, color: .accent)) }
        screen.put(padded("With", toWidth: labelWidth, alignRight: true), row: row, col: 1, style: dialog.focus == .invite ? .bold : .plain)
        let (text, cursor) = dialog.invite.visible(width: fieldWidth)
        screen.fill(row: row, col: fieldColumn, count: fieldWidth, style: Style(underline: true))
        screen.put(text, row: row, col: fieldColumn, style: Style(underline: true), maxWidth: fieldWidth)
        if dialog.focus == .invite {
            screen.cursor = Position(row: row, col: fieldColumn + cursor)
            screen.restyle(row: row, col: fieldColumn + cursor, count: 1) { $0.reverse = true }
        }
        row += 1
        guard row < top + height else { return }
        screen.put(padded("Access", toWidth: labelWidth, alignRight: true), row: row, col: 1)
        screen.put(dialog.access.rawValue, row: row, col: fieldColumn, style: .bold)
        screen.put(" (Tab changes)", row: row, col: fieldColumn + dialog.access.rawValue.count, style: .muted)
        row += 2
        guard row < top + height else { return }
        if dialog.participants.isEmpty {
            screen.put("Not shared with anyone yet.", row: row, col: 1, style: .muted)
            return
        }
        screen.put("People", row: row, col: 1, style: .bold)
        row += 1
        for (index, person) in dialog.participants.enumerated() where row < top + height {
            let selected = dialog.focus == .people && index == dialog.selection
            let name = padded(truncated(sanitize(person.account), toWidth: 24), toWidth: 24)
            screen.put(name, row: row, col: 3)
            screen.put(padded(person.access.rawValue, toWidth: 11), row: row, col: 28, style: person.access == .readOnly ? .muted : .plain)
            screen.put(person.hasAccepted ? "accepted" : "invited", row: row, col: 40, style: person.hasAccepted ? Style(color: .success) : .muted)
            if selected {
                screen.put(RowGlyphs.selected, row: row, col: 1, style: Style(bold: true, color: .accent))
                screen.restyle(row: row) { $0.reverse = true }
            }
            row += 1
        }
    }

    func drawInvitations(selection: Int, _ screen: inout Screen, top: Int, height: Int) {
        guard height > 0 else { return }
        screen.put("Invitations", row: top, col: 1, style: Style(bold: true, color: .accent))
        for (index, invitation) in state.status.invitations.enumerated() where 2 + index < height {
            let row = top + 2 + index
            let text = "'" + sanitize(invitation.listTitle) + "' from " + sanitize(invitation.owner) + " · " + invitation.access.rawValue
            screen.put(truncated(text, toWidth: screen.width - 4), row: row, col: 3)
            if index == selection {
                screen.put(RowGlyphs.selected, row: row, col: 1, style: Style(bold: true, color: .accent))
                screen.restyle(row: row) { $0.reverse = true }
            }
        }
    }

    // MARK: status line

    func drawStatusLine(_ screen: inout Screen, row: Int) {
        let width = screen.width
        // After a key that is neither y nor n, a question says how to answer it.
        let nudge = state.message == AppState.answerYesOrNo ? " (y confirms, n keeps)" : ""
        switch state.mode {
        case .confirmDelete(let id):
            let target = state.row(id: id)
            let question: (String) -> String =
                target?.isList == true
                ? { "Delete list '\($0)' and its \(Formatting.counted(state.todoCount(inList: id), "todo"))? y/n" }
                : target?.trashBehaviour == .markTrashed ? { "Delete public post '\($0)'? y/n" } : { "Delete '\($0)'? y/n" }
            // The title gives way first, so the question and how to answer it stay whole.
            let room = width - displayWidth(question("")) - displayWidth(nudge)
            let title = truncated(sanitize(target?.title ?? ""), toWidth: max(8, room))
            screen.put(truncated(question(title) + nudge, toWidth: width), row: row, col: 0, style: Style(bold: true, color: .warning))
            return
        case .confirmLeave(let id):
            let title = truncated(sanitize(state.row(id: id)?.title ?? ""), toWidth: max(1, width - 40))
            screen.put(truncated("Leave '\(title)'? Its todos leave this device. y/n" + nudge, toWidth: width), row: row, col: 0, style: Style(bold: true, color: .warning))
            return
        case .pickList:
            screen.put(truncated("j/k choose · Enter move · Esc cancel", toWidth: width), row: row, col: 0, style: .muted)
            return
        case .share(let dialog) where dialog.confirming != nil:
            let title = truncated(sanitize(dialog.listTitle), toWidth: max(1, width - 50))
            let prompt: String
            switch dialog.confirming {
            case .removing(let account)?: prompt = "Remove \(truncated(sanitize(account), toWidth: 24)) from '\(title)'? y/n"
            default: prompt = "Stop sharing '\(title)' with everyone? y/n"
            }
            screen.put(truncated(prompt + nudge, toWidth: width), row: row, col: 0, style: Style(bold: true, color: .warning))
            return
        case .share(let dialog):
            let hint = dialog.focus == .invite
                ? "Enter invite · Tab access · ↓ people · ^X stop sharing · Esc"
                : "p access · x remove · ↑ invite · ^X stop sharing · Esc"
            if let message = state.message {
                screen.put(truncated(sanitize(message.text), toWidth: width), row: row, col: 0, style: message.kind == .success ? Style(color: .success) : Style(bold: true, color: .warning))
            } else {
                screen.put(truncated(hint, toWidth: width), row: row, col: 0, style: .muted)
            }
            return
        case .invitations:
            screen.put(truncated("Enter accept · d decline · j/k choose · Esc close", toWidth: width), row: row, col: 0, style: .muted)
            return
        case .filter:
            let prefix = "/"
            screen.put(prefix, row: row, col: 0, style: Style(bold: true, color: .accent))
            let (text, cursor) = state.filter.visible(width: max(2, width - 2))
            screen.put(text, row: row, col: 1)
            screen.cursor = Position(row: row, col: 1 + cursor)
            return
        case .edit:
            screen.put(truncated("Enter save · Esc cancel · Tab/↑↓ field", toWidth: width), row: row, col: 0, style: .muted)
            return
        case .help:
            screen.put(truncated("j/k scroll · any other key closes help", toWidth: width), row: row, col: 0, style: .muted)
            return
        case .list:
            break
        }
        var position = ""
        if state.visibleCount > 0 {
            position = "\(Formatting.grouped(state.selection + 1))/\(Formatting.grouped(state.visibleCount))"
        }
        let room = max(0, width - displayWidth(position) - 1)
        if let message = state.message {
            let style: Style = switch message.kind {
            case .info: .plain
            case .success: Style(color: .success)
            case .warning: Style(bold: true, color: .warning)
            case .error: .error
            }
            screen.put(truncated(sanitize(message.text), toWidth: room), row: row, col: 0, style: style)
        } else if let error = state.status.lastError {
            screen.put(truncated("Sync error: " + sanitize(error), toWidth: room), row: row, col: 0, style: .error)
        } else if let selected = state.selectedRow, !selected.canUpdate {
            screen.put(truncated(sanitize(AppState.lockSentence(selected)), toWidth: room), row: row, col: 0, style: .muted)
        } else {
            screen.put(truncated("? help · a add · / filter · q quit", toWidth: room), row: row, col: 0, style: .muted)
        }
        if !position.isEmpty, width > displayWidth(position) + 10 {
            screen.put(position, row: row, col: width - displayWidth(position), style: .muted)
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
