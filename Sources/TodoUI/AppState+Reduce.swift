import Foundation
import TodoPlanning
public import Terminal

extension AppState {
    /// Handles one key: updates the state and returns what the executable must do.
    public mutating func reduce(_ key: Key) -> [Effect] {
        if key == .resize { return [] }
        if key == .ctrl("c") { return [.quit] }
        if loading != nil { keyPressedWhileLoading = true }
        switch mode {
        case .list:
            message = nil
            guard let command = Keymap.command(for: key) else { return [] }
            return perform(command)
        case .edit(var form):
            return reduceForm(&form, key)
        case .confirmDelete(let id):
            return reduceConfirm(id: id, key)
        case .help:
            reduceHelp(key)
            return []
        case .filter:
            reduceFilter(key)
            return []
        case .pickList(var picker):
            return reducePicker(&picker, key)
        case .share(var dialog):
            return reduceShare(&dialog, key)
        case .invitations(let selection):
            return reduceInvitations(selection: selection, key)
        case .confirmLeave(let id):
            return reduceConfirmLeave(id: id, key)
        }
    }

    /// Performs a list command as if its key was pressed.
    public mutating func perform(_ command: Command) -> [Effect] {
        if command.actsOnSelection, let row = selectedRow, !isSelectionOnScreen {
            // A remote edit moved the selected record out of sight: show it before acting on it.
            clampScroll()
            message = StatusMessage("'\(row.title)' changed on another device and moved here; press again to act on it.")
            return []
        }
        switch command {
        case .moveUp: select(selection - 1)
        case .moveDown: select(selection + 1)
        case .pageUp:
            scroll = max(0, scroll - listHeight)
            select(selection - listHeight)
        case .pageDown:
            scroll += listHeight
            select(selection + listHeight)
        case .top: select(0)
        case .bottom: select(visible.count - 1)
        case .add: startAdd()
        case .edit: startEdit()
        case .toggleDone: return toggleDone()
        case .trash: return trash()
        case .undo: return undo()
        case .filter: mode = .filter
        case .toggleCompleted:
            showCompleted.toggle()
            recomputeVisible()
            message = StatusMessage(showCompleted ? "Showing completed todos" : "Hiding completed todos")
        case .nextTab: return switchTab(by: 1)
        case .prevTab: return switchTab(by: -1)
        case .refresh:
            message = StatusMessage("Refreshing…")
            return [.refresh]
        case .help:
            helpScroll = 0
            mode = .help
        case .quit: return [.quit]
        case .newList: startNewList()
        case .move: startMove()
        case .share: startShare()
        case .invitations: showInvitations()
        case .leave: startLeave()
        }
        return []
    }

    // MARK: commands

    private mutating func switchTab(by step: Int) -> [Effect] {
        let count = Tab.allCases.count
        let before = tab
        tab = Tab(rawValue: (tab.rawValue + step + count) % count)!
        selection = 0
        scroll = 0
        recomputeVisible()
        // The public board has no push: it is polled often while its tab is on screen.
        if (before == .public) != (tab == .public) { return [.showingPublicBoard(tab == .public)] }
        return []
    }

    private mutating func startAdd() {
        switch tab {
        case .shared where status.isSignedOut:
            message = StatusMessage("Signed out: shared lists are unavailable.", kind: .warning)
        case .shared:
            guard let list = contextList else {
                message = StatusMessage("Select a list shared with you to add to it.", kind: .warning)
                return
            }
            guard list.canAddItems else {
                message = StatusMessage("Read-only: '\(list.title)' is shared with you read-only.", kind: .warning)
                return
            }
            mode = .edit(EditForm(newIn: .shared, list: list))
        case .todos where status.isSignedOut:
            message = StatusMessage("Signed out: sign in to add private todos.", kind: .warning)
        case .public where status.isSignedOut:
            message = StatusMessage("Signed out: the public board is read-only. Sign in to post.", kind: .warning)
        case .todos:
            mode = .edit(EditForm(newIn: .private, list: contextList))
        default:
            mode = .edit(EditForm(newIn: tab.scope))
        }
    }

    private mutating func startEdit() {
        guard let row = selectedRow else {
            message = StatusMessage("Nothing to edit here.", kind: .warning)
            return
        }
        guard row.canUpdate else {
            refuseLocked(row)
            return
        }
        mode = .edit(EditForm(editing: row, calendar: calendar))
    }

    mutating func refuseLocked(_ row: TodoRow) {
        message = StatusMessage(Self.lockSentence(row), kind: .warning)
    }

    /// Why a row cannot be changed, as a sentence (the sync layer's reason says what is true: read-only, owner only…).
    static func lockSentence(_ row: TodoRow) -> String {
        let reason = row.lockReason ?? "you can't change this todo"
        return reason.prefix(1).uppercased() + reason.dropFirst() + (reason.hasSuffix(".") || reason.hasSuffix(")") ? "" : ".")
    }

    private mutating func toggleDone() -> [Effect] {
        guard let row = selectedRow else { return [] }
        if row.isList {
            message = StatusMessage("Space marks todos done; '\(row.title)' is a list.")
            return []
        }
        guard row.canUpdate else {
            refuseLocked(row)
            return []
        }
        let effect = Effect.setCompleted(id: row.id, !row.isCompleted)
        // The row moves (done sinks to the bottom); the selection stays on this line, as in a checklist.
        selectedIDs[tab] = nil
        apply(effect)
        pushUndo(UndoEntry(
            label: row.isCompleted ? "reopened '\(row.title)'" : "completed '\(row.title)'",
            action: .perform([.setCompleted(id: row.id, row.isCompleted)])))
        message = StatusMessage(row.isCompleted ? "Reopened '\(row.title)'" : "Done: '\(row.title)'", kind: .success)
        return [effect]
    }

    private mutating func trash() -> [Effect] {
        guard let row = selectedRow else { return [] }
        switch row.trashBehaviour {
        case .refuse(let reason):
            message = StatusMessage("Can't delete: \(reason)", kind: .warning)
            return []
        case .delete, .markTrashed:
            // One rule: a key that removes something asks y/n first (d, x, Ctrl-X); u undoes it afterwards.
            mode = .confirmDelete(id: row.id)
            return []
        }
    }

    private mutating func undo() -> [Effect] {
        guard let entry = undoStack.popLast() else {
            message = StatusMessage("Nothing to undo.")
            return []
        }
        let effects: [Effect]
        switch entry.action {
        case .perform(let inverse):
            for effect in inverse { applyLocally(effect) }
            effects = inverse
        case .recreate(let rows):
            // Under the same ids (record names), so older undo steps naming them still work; done stays done.
            var recreated: [Effect] = []
            for row in rows {
                let effect = Effect.create(id: row.id, row.draft)
                applyLocally(effect, template: row)
                recreated.append(effect)
                if row.isCompleted { recreated.append(.setCompleted(id: row.id, true)) }
            }
            if let first = rows.first { selectedIDs[Tab(first.scope)] = first.id }
            effects = recreated
        case .untrash(let row):
            let effect = Effect.setTrashed(id: row.id, false)
            applyLocally(effect, template: row)
            selectedIDs[tab] = row.id
            effects = [effect]
        }
        recomputeVisible()
        message = StatusMessage("Undid: \(entry.label)", kind: .success)
        return effects
    }


    // MARK: confirm, help, filter

    /// Said when a key other than y or n answers a y/n question (the question stays).
    static let answerYesOrNo = StatusMessage("Press y to confirm, or n (Esc) to keep it.", kind: .warning)

    private mutating func reduceConfirm(id: String, _ key: Key) -> [Effect] {
        guard let row = row(id: id) else {
            mode = .list
            return []
        }
        switch key {
        case .char("y"), .char("Y"):
            mode = .list
            if row.trashBehaviour == .markTrashed {
                // The public board cannot carry a deletion: the post is marked deleted (isTrashed) and hidden.
                let effect = Effect.setTrashed(id: row.id, true)
                apply(effect)
                pushUndo(UndoEntry(label: "deleted '\(row.title)'", action: .untrash(row)))
                message = StatusMessage("Deleted public post '\(row.title)' (u undoes)", kind: .success)
                return [effect]
            }
            let effect = Effect.delete(id: id)
            if row.isList {
                let members = rows(in: Tab(row.scope)).filter { !$0.isList && $0.listID == id }
                apply(effect)
                pushUndo(UndoEntry(label: "deleted list '\(row.title)'", action: .recreate([row] + members)))
                message = StatusMessage(
                    "Deleted list '\(row.title)' and \(Formatting.counted(members.count, "todo")) (u undoes)", kind: .success)
                return [effect]
            }
            apply(effect)
            pushUndo(UndoEntry(label: "deleted '\(row.title)'", action: .recreate([row])))
            message = StatusMessage("Deleted '\(row.title)' (u undoes)", kind: .success)
            return [effect]
        case .char("n"), .char("N"), .escape, .char("q"):
            mode = .list
            message = StatusMessage("Kept '\(row.title)'")
            return []
        default:
            message = Self.answerYesOrNo
            return []
        }
    }

    private mutating func reduceHelp(_ key: Key) {
        switch key {
        case .char("j"), .down: helpScroll += 1
        case .char("k"), .up: helpScroll = max(0, helpScroll - 1)
        case .pageDown, .ctrl("d"), .char(" "): helpScroll += listHeight
        case .pageUp, .ctrl("u"): helpScroll = max(0, helpScroll - listHeight)
        default:
            mode = .list
            return
        }
        helpScroll = min(helpScroll, max(0, helpLines.count - (listHeight - 1)))
    }

    private mutating func reduceFilter(_ key: Key) {
        switch key {
        case .escape:
            filter = LineEditor()
            mode = .list
            recomputeVisible()
        case .enter:
            mode = .list
            if filter.text.isEmpty { return }
            message = StatusMessage("Filter '\(filter.text)': \(Formatting.grouped(visible.count)) shown (/ then Esc clears)")
        case .up: select(selection - 1)
        case .down: select(selection + 1)
        case .tab, .backTab: break
        default:
            let before = filter.text
            filter.handle(key)
            let after = filter.text
            if after != before {
                // Typing more only narrows the list: search the rows already shown.
                if !before.isEmpty, after.hasPrefix(before) { narrowVisible() } else { recomputeVisible() }
            }
        }
    }

    // MARK: the form

    private mutating func reduceForm(_ form: inout EditForm, _ key: Key) -> [Effect] {
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
        guard let due = Formatting.parseDue(form[.due].text, now: now, calendar: calendar) else {
            return refuseSave(&form, DueDateGrammar.formLine(for: form[.due].text, now: now, calendar: calendar), focus: .due)
        }
        let priorityText = form[.priority].text.trimmingCharacters(in: .whitespaces)
        guard let priority = priorityText.isEmpty ? 0 : Int(priorityText), (0...3).contains(priority) else {
            return refuseSave(&form, "Priority: 0 (none) to 3 (high).", focus: .priority)
        }
        let draft = TodoDraft(
            title: title, notes: form[.notes].text, dueDate: due, priority: priority, scope: form.scope, kind: form.kind,
            listID: form.listID)
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

/// Handles one key on `state` and returns the effects to perform (free-function spelling).
public func reduce(_ state: inout AppState, _ key: Key) -> [Effect] {
    state.reduce(key)
}
