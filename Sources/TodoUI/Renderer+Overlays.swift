import Foundation
import Terminal

extension Renderer {
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
        // What must show: the heading, the focused field and the lines under the fields (why a save was refused,
        // what changed elsewhere); then as many fields as fit around the focused one, a blank line under the
        // heading, the hint, and a blank line above it.
        let messages = [form.underneath.map { ($0, Style.warning) }, form.error.map { ($0, Style.error) }].compactMap(\.self)
        let fields = form.fields
        var rest = height - 1 - messages.count
        let room = max(1, min(fields.count, rest))
        rest -= room
        let gapUnderHeading = rest >= 1
        if gapUnderHeading { rest -= 1 }
        let showsHint = form.kind == .todo && rest >= 1
        if showsHint { rest -= 1 }
        let gapAboveHint = rest >= 1 && (showsHint || !messages.isEmpty)
        var row = top
        let noun = form.kind == .list ? "list" : "todo"
        var heading = form.targetID == nil ? "New \(noun) · \(Tab(form.scope).title)" : (form.kind == .list ? "Rename list" : "Edit todo")
        if form.targetID == nil, let listTitle = form.listTitle { heading += " › " + sanitize(listTitle) }
        screen.put(heading, row: row, col: 1, style: Style(bold: true, color: .accent))
        row += gapUnderHeading ? 2 : 1
        let labelWidth = 9
        let fieldColumn = labelWidth + 2
        let fieldWidth = max(2, screen.width - fieldColumn - 1)
        let focusIndex = fields.firstIndex(of: form.focus) ?? 0
        let first = min(max(0, focusIndex - room / 2), fields.count - room)
        for field in fields[first..<first + room] where row < top + height {
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
        if gapAboveHint { row += 1 }
        if showsHint, row < top + height {
            screen.put(truncated("Due: fri 17:00, +3d, eow · Repeat: weekly · Priority 0–3", toWidth: screen.width - 2), row: row, col: 1, style: .muted)
            row += 1
        }
        for (text, style) in messages where row < top + height {
            screen.put(truncated(sanitize(text), toWidth: screen.width - 2), row: row, col: 1, style: style)
            row += 1
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
}
