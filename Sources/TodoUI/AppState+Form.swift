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
        let moments: FormMoments
        switch form.readMoments(now: now, calendar: calendar) {
        case .success(let read): moments = read
        case .failure(let problem): return refuseSave(&form, problem.line, focus: problem.field)
        }
        let blockers: [String]
        switch readBlockers(form) {
        case .success(let read): blockers = read
        case .failure(let problem): return refuseSave(&form, problem.line, focus: problem.field)
        }
        var draft = TodoDraft(
            title: title, notes: form[.notes].text, due: planning.due, priority: priority, scope: form.scope, kind: form.kind,
            listID: form.listID, tags: planning.tags, repeatRule: planning.repeatRule,
            repeatFromCompletion: planning.repeatFromCompletion, wait: moments.wait, scheduled: moments.scheduled, until: moments.until,
            depends: blockers)
        // The project: a list found by its title, or a new private list made first (the effects run in order).
        var listEffects: [Effect] = []
        var projectListID: String??
        switch readProject(form) {
        case nil: break
        case .noList?: projectListID = .some(nil)
        case .existing(let list)?: projectListID = list.id
        case .new(let path)?:
            let listID = nameRow(makeID(), .private, nil)
            let listEffect = Effect.create(id: listID, TodoDraft(title: path, scope: .private, kind: .list))
            applyLocally(listEffect)
            listEffects.append(listEffect)
            projectListID = listID
        }
        mode = .list
        if let id = form.targetID, let original = form.original {
            let move = projectListID.flatMap { $0 == original.listID ? nil : Effect.move(id: id, toList: $0) }
            guard draft != original || move != nil else {
                message = StatusMessage("No changes.")
                return []
            }
            // Only the fields the person changed: a field changed on another device meanwhile keeps that value.
            let effect: Effect = form.kind == .list ? .update(id: id, draft) : .edit(id: id, TodoChanges(from: original, to: draft))
            var inverse: [Effect] = [form.kind == .list ? .update(id: id, original) : .edit(id: id, TodoChanges(from: draft, to: original))]
            apply(effect)
            if let move {
                apply(move)
                inverse.append(.move(id: id, toList: original.listID))
            }
            pushUndo(UndoEntry(label: "edit of '\(title)'", action: .perform(inverse)))
            message = StatusMessage("Saved '\(title)'", kind: .success)
            return listEffects + [effect] + (move.map { [$0] } ?? [])
        }
        if let chosen = projectListID {
            draft.listID = chosen
            if let list = chosen.flatMap({ row(id: $0) }) { draft.scope = list.scope }
        }
        let id = nameRow(makeID(), draft.scope, draft.listID)
        let effect = Effect.create(id: id, draft)
        applyLocally(effect)
        if Tab(draft.scope) == tab { selectedIDs[tab] = id }
        recomputeVisible()
        let inverse: Effect = draft.scope == .public ? .setTrashed(id: id, true) : .delete(id: id)
        pushUndo(UndoEntry(label: "added '\(title)'", action: .perform([inverse])))
        message = StatusMessage("Added '\(title)'", kind: .success)
        return listEffects + [effect]
    }

    private mutating func refuseSave(_ form: inout EditForm, _ error: String, focus: FormField) -> [Effect] {
        form.error = error
        form.focus = focus
        mode = .edit(form)
        return []
    }
}
