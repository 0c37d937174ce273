import Foundation
import Terminal
import TodoPlanning

/// Marks (`v`) and the actions on every marked todo: each is one `Effect.batch` and one undo step.
extension AppState {
    /// The marked rows that still exist, in display order (tab by tab).
    var markedRows: [TodoRow] {
        guard !marked.isEmpty else { return [] }
        var rows: [TodoRow] = []
        for tab in Tab.allCases {
            guard let data = tabs[tab] else { continue }
            for row in data.rows where marked.contains(row.id) { rows.append(row) }
        }
        return rows
    }

    /// What an action key acts on: the marked todos, else the selected one.
    var actionTargets: [TodoRow] {
        if !marked.isEmpty { return markedRows }
        return selectedRow.map { [$0] } ?? []
    }

    mutating func toggleMark() {
        guard let row = selectedRow else { return }
        guard !row.isList else {
            message = StatusMessage("v marks todos; '\(row.title)' is a list.", kind: .warning)
            return
        }
        if marked.remove(row.id) == nil { marked.insert(row.id) }
        if showsToday { moveInAgenda(by: 1) } else { select(selection + 1) }
    }

    mutating func clearMarks() {
        guard !marked.isEmpty else { return }
        message = StatusMessage("Cleared \(Formatting.counted(marked.count, "mark"))")
        marked = []
    }

    /// The rows of `rows` the user may change, and a note on those skipped ("2 read-only skipped").
    private func changeable(_ rows: [TodoRow]) -> (rows: [TodoRow], skipped: String) {
        let allowed = rows.filter { $0.canUpdate && !$0.isList }
        let skipped = rows.count - allowed.count
        return (allowed, skipped == 0 ? "" : " (\(Formatting.grouped(skipped)) read-only skipped)")
    }

    /// Performs one bulk action: applies `effects` here, pushes one undo step of `inverse`, says `done`.
    private mutating func performBulk(_ effects: [Effect], inverse: UndoEntry.Action, label: String, done: String) -> [Effect] {
        guard !effects.isEmpty else {
            message = StatusMessage("Nothing to change: \(done)", kind: .warning)
            return []
        }
        for effect in effects { applyLocally(effect) }
        recomputeVisible()
        pushUndo(UndoEntry(label: label, action: inverse, batched: true))
        message = StatusMessage(done + undoNote, kind: .success)
        return [.batch(effects)]
    }

    /// Space with marks: completes them all, or reopens them when all are done.
    mutating func toggleDoneMarked() -> [Effect] {
        let (rows, skipped) = changeable(markedRows)
        let done = rows.contains { !$0.isCompleted }
        let changing = rows.filter { $0.isCompleted != done }
        let effects = changing.map { Effect.setCompleted(id: $0.id, done) }
        let inverse = changing.map { Effect.setCompleted(id: $0.id, !done) }
        let counted = Formatting.counted(changing.count, "todo")
        return performBulk(
            effects, inverse: .perform(inverse), label: (done ? "completed " : "reopened ") + counted,
            done: (done ? "Completed " : "Reopened ") + counted + skipped)
    }

    mutating func startBulkDelete() {
        let rows = markedRows.filter { !$0.isList }
        let deletable = rows.filter { if case .refuse = $0.trashBehaviour { false } else { true } }
        guard !deletable.isEmpty else {
            message = StatusMessage("None of the marked todos can be deleted.", kind: .warning)
            return
        }
        mode = .confirmBulkDelete(ids: deletable.map(\.id))
    }

    mutating func reduceConfirmBulkDelete(ids: [String], _ key: Key) -> [Effect] {
        switch key {
        case .char("y"), .char("Y"):
            mode = .list
            var effects: [Effect] = []
            var inverse: [UndoEntry.Action] = []
            for id in ids {
                guard let row = row(id: id) else { continue }
                if row.trashBehaviour == .markTrashed {
                    effects.append(.setTrashed(id: id, true))
                    inverse.append(.untrash(row))
                } else {
                    effects.append(.delete(id: id))
                    inverse.append(.recreate([row]))
                }
            }
            let skipped = marked.count - effects.count
            marked = []
            let counted = Formatting.counted(effects.count, "todo")
            return performBulk(
                effects, inverse: .several(inverse), label: "deleted " + counted,
                done: "Deleted " + counted + (skipped > 0 ? " (\(Formatting.grouped(skipped)) kept: not yours to delete)" : ""))
        case .char("n"), .char("N"), .escape, .char("q"):
            mode = .list
            message = StatusMessage("Kept the marked todos")
        default:
            message = Self.answerYesOrNo
        }
        return []
    }

    /// Moves the marked todos to the list picked (those in another owner's zone become new records there).
    mutating func moveMarked(_ ids: [String], to option: ListPicker.Option) -> [Effect] {
        let targetScope = option.listID.flatMap { self.row(id: $0)?.scope } ?? .private
        var effects: [Effect] = []
        var inverse: [Effect] = []
        for id in ids {
            guard let row = row(id: id), row.canUpdate, row.scope != .public, row.listID != option.listID else { continue }
            let effect = Effect.move(id: id, toList: option.listID)
            effects.append(effect)
            if targetScope == row.scope {
                applyLocally(effect)
                inverse.append(.move(id: id, toList: row.listID))
            } else {
                // Into another owner's zone the todo becomes a new record there; the engine's snapshot shows it.
                tabs[Tab(row.scope)]?.remove(id: id)
            }
        }
        let counted = Formatting.counted(effects.count, "todo")
        let target = option.listID == nil ? "no list" : "'\(option.title)'"
        recomputeVisible()
        guard !effects.isEmpty else {
            message = StatusMessage("The marked todos are in \(target) already.")
            return []
        }
        pushUndo(UndoEntry(label: "move of " + counted, action: .perform(inverse), batched: true))
        message = StatusMessage("Moved \(counted) to \(target)\(undoNote)", kind: .success)
        return [.batch(effects)]
    }

    /// Opens the one-line prompt of `purpose` for the todos an action key acts on.
    mutating func startPrompt(_ purpose: ([String]) -> Prompt.Purpose) {
        let targets = actionTargets
        guard !targets.isEmpty else { return }
        if marked.isEmpty, let row = targets.first {
            guard !row.isList else {
                message = StatusMessage("Select a todo: '\(row.title)' is a list.", kind: .warning)
                return
            }
            guard row.canUpdate else {
                refuseLocked(row)
                return
            }
        }
        mode = .prompt(Prompt(purpose(targets.map(\.id))))
    }

    mutating func reducePrompt(_ prompt: inout Prompt, _ key: Key) -> [Effect] {
        switch key {
        case .escape:
            if case .annotate(let id) = prompt.purpose { mode = .detail(DetailView(id: id)) } else { mode = .list }
            message = StatusMessage("Cancelled.")
            return []
        case .enter where prompt.isSecret:
            guard case .signIn = prompt.purpose, !prompt.editor.text.isEmpty else { return refuseEmpty(prompt) }
            mode = .list
            message = StatusMessage("Signing in…")
            status.signingIn = true
            return [.signIn(password: prompt.editor.text)]
        case .enter:
            let answer = prompt.editor.text.trimmingCharacters(in: .whitespaces)
            return answer.isEmpty ? refuseEmpty(prompt) : answerPrompt(prompt.purpose, answer)
        case .tab, .backTab, .up, .down:
            break
        default:
            prompt.editor.handle(key)
        }
        mode = .prompt(prompt)
        return []
    }

    private mutating func refuseEmpty(_ prompt: Prompt) -> [Effect] {
        message = StatusMessage("Type an answer, or Esc to cancel.", kind: .warning)
        mode = .prompt(prompt)
        return []
    }

    private mutating func answerPrompt(_ purpose: Prompt.Purpose, _ answer: String) -> [Effect] {
        mode = .list
        switch purpose {
        case .signIn: return []  // answered above, as typed
        case .saveFilter: return saveFilter(named: answer)
        case .annotate(let id): return annotate(id, answer)
        case .priority(let ids):
            guard let priority = Int(answer), (0...3).contains(priority) else {
                message = StatusMessage("Priority: 0 (none) to 3 (high).", kind: .warning)
                return []
            }
            return changeEach(ids, label: "priority \(priority)") { $0.priority == priority ? nil : TodoChanges(priority: priority) }
                inverse: { TodoChanges(priority: $0.priority) }
        case .addTag(let ids), .removeTag(let ids):
            let tag: String
            do { tag = try TagName.read(answer) } catch {
                message = StatusMessage(error.description, kind: .warning)
                return []
            }
            let adding = if case .addTag = purpose { true } else { false }
            let key = tag.lowercased()
            return changeEach(ids, label: (adding ? "tag +" : "untag +") + tag) { row in
                let has = row.tags.contains { $0.lowercased() == key }
                if adding { return has ? nil : TodoChanges(tags: row.tags + [tag]) }
                return has ? TodoChanges(tags: row.tags.filter { $0.lowercased() != key }) : nil
            } inverse: { TodoChanges(tags: $0.tags) }
        }
    }

    /// Edits each of `ids` by `change` (nil: leaves it), as one step undone by `inverse`; one row without marks
    /// gives a plain `.edit`, marked rows one `.batch`.
    private mutating func changeEach(
        _ ids: [String], label: String, _ change: (TodoRow) -> TodoChanges?, inverse: (TodoRow) -> TodoChanges
    ) -> [Effect] {
        var effects: [Effect] = []
        var undo: [Effect] = []
        var skipped = 0
        for id in ids {
            guard let row = row(id: id), !row.isList else { continue }
            guard row.canUpdate else {
                skipped += 1
                continue
            }
            guard let changes = change(row) else { continue }
            effects.append(.edit(id: id, changes))
            undo.append(.edit(id: id, inverse(row)))
        }
        if ids.count == 1, marked.isEmpty, let effect = effects.first, let row = row(id: ids[0]) {
            apply(effect)
            pushUndo(UndoEntry(label: "\(label) on '\(row.title)'", action: .perform(undo)))
            message = StatusMessage("Set \(label) on '\(row.title)'", kind: .success)
            return [effect]
        }
        let counted = Formatting.counted(effects.count, "todo")
        let note = skipped > 0 ? " (\(Formatting.grouped(skipped)) read-only skipped)" : ""
        return performBulk(effects, inverse: .perform(undo), label: "\(label) on \(counted)", done: "Set \(label) on \(counted)" + note)
    }
}
