import Foundation
import Terminal
import TodoPlanning

/// One line of the detail view: a label (right-aligned before the value, or a heading when the value is empty), a
/// value and its style.
struct DetailLine {
    var label: String
    var value: String
    var style: Style = .plain
}

extension AppState {
    /// Width of the detail view's labels.
    static let detailLabelWidth = 9

    /// The lines of the detail view of `row` on a screen `width` columns wide, sanitised and wrapped.
    func detailLines(of row: TodoRow, width: Int) -> [DetailLine] {
        let valueWidth = max(8, width - Self.detailLabelWidth - 3)
        var lines: [DetailLine] = []
        for (index, part) in Formatting.wrapped(sanitize(row.title), width: max(8, width - 2)).enumerated() {
            lines.append(DetailLine(label: index == 0 ? "" : "", value: part, style: Style(bold: true, color: .accent)))
        }
        lines.append(DetailLine(label: "", value: ""))
        let listTitle = row.listID.flatMap { self.row(id: $0)?.title }
        var place = Tab(row.scope).title
        if let owner = row.owner, row.scope != .private { place += " · " + owner + "'s" }
        lines.append(DetailLine(label: "List", value: listTitle.map { sanitize($0) + " · " + place } ?? "none · " + place))
        if let due = row.due {
            var text = Formatting.dueInFull(due, calendar: calendar)
            let urgency = row.isCompleted ? nil : Formatting.urgency(of: due, now: now, calendar: calendar)
            if urgency == .overdue { text += " · overdue" }
            if urgency == .today { text += " · today" }
            lines.append(DetailLine(label: "Due", value: text, style: Renderer.dueStyle(urgency, base: .plain)))
        } else {
            lines.append(DetailLine(label: "Due", value: "none", style: .muted))
        }
        if let summary = row.repeatSummary {
            let text = sanitize(summary)
            for (index, part) in Formatting.wrapped(text, width: valueWidth).enumerated() {
                lines.append(DetailLine(label: index == 0 ? "Repeat" : "", value: part))
            }
        }
        for (label, moment) in [("Wait", row.wait), ("Scheduled", row.scheduled), ("Until", row.until), ("Started", row.start)] {
            if let moment { lines.append(DetailLine(label: label, value: Formatting.dueInFull(DueDate(moment, allDay: false), calendar: calendar))) }
        }
        for (index, blocker) in openBlockers(of: row).enumerated() {
            let text = sanitize(blocker.title) + " · ID " + Self.shortID(blocker.id)
            for (part, wrapped) in Formatting.wrapped(text, width: valueWidth).enumerated() {
                lines.append(DetailLine(label: index == 0 && part == 0 ? "Waits on" : "", value: wrapped, style: Style(color: .warning)))
            }
        }
        if !row.isCompleted, isBlocking(row) {
            lines.append(DetailLine(label: "Blocking", value: "an open todo waits on it"))
        }
        let tags = row.tags.map { "+" + sanitize($0) }.joined(separator: " ")
        for (index, part) in Formatting.wrapped(tags.isEmpty ? "none" : tags, width: valueWidth).enumerated() {
            lines.append(DetailLine(label: index == 0 ? "Tags" : "", value: part, style: tags.isEmpty ? .muted : .plain))
        }
        let priority = row.priority == 0 ? "none" : String(repeating: "!", count: row.priority) + " (\(row.priority))"
        lines.append(DetailLine(label: "Priority", value: priority, style: row.priority == 0 ? .muted : .plain))
        lines.append(DetailLine(label: "Status", value: (row.isCompleted ? "done" : "open") + (row.canUpdate ? "" : " · read-only")))
        if !row.unreadableFields.isEmpty {
            // Names the cloud sent (untrusted); what `todo info` says of the same record.
            let text = row.unreadableFields.map { sanitize($0) }.joined(separator: ", ") + ": in a form this device cannot read; taken as absent and kept as it came"
            for (index, part) in Formatting.wrapped(text, width: valueWidth).enumerated() {
                lines.append(DetailLine(label: index == 0 ? "Not read" : "", value: part, style: Style(color: .overdue)))
            }
        }
        lines.append(DetailLine(label: "", value: ""))
        lines.append(DetailLine(label: "Notes", value: ""))
        if row.notes.isEmpty {
            lines.append(DetailLine(label: "", value: "none", style: .muted))
        } else {
            // Line breaks of the notes are kept; other controls are made inert.
            for paragraph in row.notes.split(separator: "\n", omittingEmptySubsequences: false) {
                for part in Formatting.wrapped(sanitize(String(paragraph)), width: valueWidth) {
                    lines.append(DetailLine(label: "", value: part))
                }
            }
        }
        lines.append(DetailLine(label: "", value: ""))
        lines.append(DetailLine(label: "Notes log", value: ""))
        if row.annotations.isEmpty {
            lines.append(DetailLine(label: "", value: "none (a adds one)", style: .muted))
        }
        for annotation in row.annotations {
            let stamp = Formatting.day(annotation.entry, calendar: calendar) + " " + Formatting.time(annotation.entry, calendar: calendar)
            lines.append(DetailLine(label: "", value: stamp, style: .muted))
            for paragraph in annotation.text.split(separator: "\n", omittingEmptySubsequences: false) {
                for part in Formatting.wrapped(sanitize(String(paragraph)), width: max(4, valueWidth - 2)) {
                    lines.append(DetailLine(label: "", value: "  " + part))
                }
            }
        }
        return lines
    }
}

extension Renderer {
    func drawDetail(_ view: DetailView, _ screen: inout Screen, top: Int, height: Int) {
        guard height > 0 else { return }
        guard let row = state.row(id: view.id) else {
            screen.put("That todo is gone.", row: top + 1, col: 2, style: .muted)
            return
        }
        let lines = state.detailLines(of: row, width: screen.width)
        let start = min(view.scroll, max(0, lines.count - height))
        let labelWidth = AppState.detailLabelWidth
        for (offset, line) in lines.dropFirst(start).prefix(height).enumerated() {
            let y = top + offset
            if line.label.isEmpty && line.value.isEmpty { continue }
            if !line.label.isEmpty, line.value.isEmpty {
                screen.put(line.label, row: y, col: 1, style: .bold)
                continue
            }
            if line.label.isEmpty, line.style == Style(bold: true, color: .accent) {
                screen.put(line.value, row: y, col: 1, style: line.style, maxWidth: screen.width - 2)
                continue
            }
            if !line.label.isEmpty {
                screen.put(padded(line.label, toWidth: labelWidth, alignRight: true), row: y, col: 1, style: .bold)
            }
            screen.put(line.value, row: y, col: labelWidth + 2, style: line.style, maxWidth: screen.width - labelWidth - 3)
        }
    }

    func drawAgenda(_ screen: inout Screen, top: Int, height: Int) {
        guard !state.agenda.isEmpty else {
            let lines = state.agendaKind == .next ? [
                state.appliedFilterText.isEmpty ? "Nothing open." : "Nothing open matches the filter.",
                state.keyed(.next) { "\($0) goes back to the tabs." },
            ] : [
                state.appliedFilterText.isEmpty
                    ? "Nothing overdue or due in the next \(AppState.upcomingDays) days."
                    : "Nothing the filter matches is overdue or due in the next \(AppState.upcomingDays) days.",
                state.keyed(.today) { "\($0) goes back to the tabs." },
            ]
            for (offset, line) in lines.enumerated() where offset + 1 < height {
                screen.put(truncated(line, toWidth: screen.width - 2), row: top + 1 + offset, col: 2, style: .muted)
            }
            return
        }
        // The Next view keeps the last columns for each todo's urgency.
        let scoreWidth = state.agendaKind == .next && screen.width >= 40 ? 7 : 0
        let layout = RowLayout(width: screen.width - scoreWidth)
        let end = min(state.agenda.count, state.agendaScroll + height)
        for index in state.agendaScroll..<end {
            let y = top + index - state.agendaScroll
            switch state.agenda[index] {
            case .heading(let text):
                let role: ColorRole = text.hasPrefix("Overdue") ? .overdue : text.hasPrefix("Today") ? .today : .accent
                let style = Style(bold: true, color: role)
                screen.put(truncated(text, toWidth: screen.width - 2), row: y, col: 1, style: style)
            case .todo(let row):
                drawRow(row, selected: index == state.agendaSelection, layout: layout, &screen, row: y)
                if scoreWidth > 0, index < state.agendaScores.count {
                    let score = state.agendaScores[index]
                    let selected = index == state.agendaSelection
                    let text = padded(Urgency.text(score), toWidth: scoreWidth - 1, alignRight: true)
                    screen.put(text, row: y, col: screen.width - scoreWidth, style: selected ? Style(bold: true) : Style(color: .muted))
                    if selected { screen.restyle(row: y) { $0.reverse = true } }
                }
            }
        }
    }
}
