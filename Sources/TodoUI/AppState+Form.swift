import Foundation
import Terminal
import TodoPlanning

/// The add/edit form's keys and saving.
extension AppState {
    // MARK: the form

    mutating func reduceForm(_ form: inout EditForm, _ key: Key) -> [Effect] {
        switch key {
        case .escape:
            mode = .list
            message = StatusMessage(form.targetID == nil ? "Not added." : "Edit cancelled.")
            return []
        case .enter:
            return save(&form)
        case .tab, .down:
            form.focus = form.field(after: 1)
        case .backTab, .up:
            form.focus = form.field(after: -1)
        default:
            form[form.focus].handle(key)
        }
        mode = .edit(form)
        return []
    }

    private mutating func save(_ form: inout EditForm) -> [Effect] {
        let title = form[.title].text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty else {
            return refuseSave(&form, form.kind == .list ? "A list needs a title." : "A todo needs a title.", focus: .title)
        }
        let planning: FormPlanning
        switch form.readPlanning(now: now, calendar: calendar) {
        case .success(let read): planning = read
        case .failure(let problem): return refuseSave(&form, problem.line, focus: problem.field)
        }
        let priorityText = form[.priority].text.trimmingCharacters(in: .whitespaces)
        guard let priority = priorityText.isEmpty ? 0 : Int(priorityText), (0...3).contains(priority) else {
            return refuseSave(&form, "Priority: 0 (none) to 3 (high).", focus: .priority)
        }
        let draft = TodoDraft(
            title: title, notes: form[.notes].text, due: planning.due, priority: priority, scope: form.scope, kind: form.kind,
            listID: form.listID, tags: planning.tags, repeatRule: planning.repeatRule,
            repeatFromCompletion: planning.repeatFromCompletion)
        mode = .list
        if let id = form.targetID, let original = form.original {
            guard draft != original else {
                message = StatusMessage("No changes.")
                return []
            }
            // Only the fields the person changed: a field changed on another device meanwhile keeps that value.
            let effect: Effect = form.kind == .list ? .update(id: id, draft) : .edit(id: id, TodoChanges(from: original, to: draft))
            let inverse: Effect = form.kind == .list ? .update(id: id, original) : .edit(id: id, TodoChanges(from: draft, to: original))
            apply(effect)
            pushUndo(UndoEntry(label: "edit of '\(title)'", action: .perform([inverse])))
            message = StatusMessage("Saved '\(title)'", kind: .success)
            return [effect]
        }
        let id = nameRow(makeID(), draft.scope, draft.listID)
        let effect = Effect.create(id: id, draft)
        applyLocally(effect)
        if Tab(draft.scope) == tab { selectedIDs[tab] = id }
        recomputeVisible()
        let inverse: Effect = draft.scope == .public ? .setTrashed(id: id, true) : .delete(id: id)
        pushUndo(UndoEntry(label: "added '\(title)'", action: .perform([inverse])))
        message = StatusMessage("Added '\(title)'", kind: .success)
        return [effect]
    }

    private mutating func refuseSave(_ form: inout EditForm, _ error: String, focus: FormField) -> [Effect] {
        form.error = error
        form.focus = focus
        mode = .edit(form)
        return []
    }
}
