import Foundation
import Terminal

extension Renderer {
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
            // A filter that does not read says why at the right; the one before it stays in effect.
            let error = state.filterError.map { truncated(sanitize($0), toWidth: max(0, width / 2 - 2)) } ?? ""
            let fieldWidth = error.isEmpty ? width - 2 : max(2, width - 3 - displayWidth(error))
            let (text, cursor) = state.filter.visible(width: max(2, fieldWidth))
            screen.put(text, row: row, col: 1)
            if !error.isEmpty { screen.put(error, row: row, col: width - displayWidth(error), style: .error) }
            screen.cursor = Position(row: row, col: 1 + cursor)
            return
        case .prompt(let prompt):
            let question = prompt.question + " "
            let used = screen.put(question, row: row, col: 0, style: Style(bold: true, color: .accent))
            if let message = state.message, message.kind == .warning {
                let note = truncated(sanitize(message.text), toWidth: max(0, width / 2 - 2))
                screen.put(note, row: row, col: width - displayWidth(note), style: .warning)
            }
            if prompt.isSecret {
                screen.cursor = Position(row: row, col: min(used, width - 1))  // nothing of a password is drawn
                return
            }
            let (text, cursor) = prompt.editor.visible(width: max(2, width - used - 1))
            screen.put(text, row: row, col: used)
            screen.cursor = Position(row: row, col: used + cursor)
            return
        case .confirmBulkDelete(let ids):
            screen.put(truncated("Delete \(Formatting.counted(ids.count, "marked todo"))? y/n" + nudge, toWidth: width), row: row, col: 0, style: Style(bold: true, color: .warning))
            return
        case .detail:
            if let message = state.message {
                screen.put(truncated(sanitize(message.text), toWidth: width), row: row, col: 0, style: message.kind == .success ? Style(color: .success) : message.kind == .info ? .muted : Style(bold: true, color: .warning))
            } else {
                screen.put(truncated("a annotate · e edit · j/k scroll · Esc close", toWidth: width), row: row, col: 0, style: .muted)
            }
            return
        case .edit:
            screen.put(truncated("Enter save · Esc cancel · Tab/↑↓ field", toWidth: width), row: row, col: 0, style: .muted)
            return
        case .help:
            screen.put(truncated("j/k scroll · any other key closes help", toWidth: width), row: row, col: 0, style: .muted)
            return
        case .calendar:
            let text = state.message?.text ?? "←→↑↓ day · < > month · t today · Esc close"
            screen.put(truncated(sanitize(text), toWidth: width), row: row, col: 0, style: .muted)
            return
        case .list:
            break
        }
        var position = ""
        if state.showsToday {
            let todos = state.agenda.todoCount(before: state.agendaSelection + 1)
            if todos > 0 { position = "\(Formatting.grouped(todos))/\(Formatting.grouped(state.agendaTodoCount))" }
        } else if state.visibleCount > 0 {
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
        } else if !state.marked.isEmpty {
            let text = "\(Formatting.grouped(state.marked.count)) marked · " + state.markedHint
            screen.put(truncated(text, toWidth: room), row: row, col: 0, style: Style(bold: true, color: .accent))
        } else if let error = state.status.lastError {
            screen.put(truncated("Sync error: " + sanitize(error), toWidth: room), row: row, col: 0, style: .error)
        } else if let selected = state.selectedRow, !selected.canUpdate {
            screen.put(truncated(sanitize(AppState.lockSentence(selected)), toWidth: room), row: row, col: 0, style: .muted)
        } else {
            screen.put(truncated(state.listHint, toWidth: room), row: row, col: 0, style: .muted)
        }
        if !position.isEmpty, width > displayWidth(position) + 10 {
            screen.put(position, row: row, col: width - displayWidth(position), style: .muted)
        }
    }
}
