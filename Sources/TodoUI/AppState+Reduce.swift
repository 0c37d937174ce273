import Foundation
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
        case .nextTab: switchTab(by: 1)
        case .prevTab: switchTab(by: -1)
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

    private mutating func switchTab(by step: Int) {
        let count = Tab.allCases.count
        tab = Tab(rawValue: (tab.rawValue + step + count) % count)!
        selection = 0
        scroll = 0
        recomputeVisible()
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

    private mutating func refuseLocked(_ row: TodoRow) {
        message = StatusMessage("Read-only: \(row.lockReason ?? "you can't change this todo.")", kind: .warning)
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
            message = StatusMessage("Can't trash: \(reason)", kind: .warning)
            return []
        case .delete:
            mode = .confirmDelete(id: row.id)
            return []
        case .markTrashed:
            let effect = Effect.setTrashed(id: row.id, true)
            apply(effect)
            pushUndo(UndoEntry(label: "trashed '\(row.title)'", action: .untrash(row)))
            message = StatusMessage("Trashed '\(row.title)' (public: marked, u undoes)", kind: .success)
            return [effect]
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
        case .recreate(let row):
            let id = makeID()
            let effect = Effect.create(id: id, row.draft)
            applyLocally(effect, template: row)
            selectedIDs[tab] = id
            effects = [effect]
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

    private mutating func reduceConfirm(id: String, _ key: Key) -> [Effect] {
        guard let row = row(id: id) else {
            mode = .list
            return []
        }
        switch key {
        case .char("y"), .char("Y"):
            mode = .list
            let effect = Effect.delete(id: id)
            if row.isList {
                let count = tabs[tab]?.count(inList: id) ?? 0
                apply(effect)
                message = StatusMessage("Deleted list '\(row.title)' and \(Formatting.counted(count, "todo"))", kind: .success)
                return [effect]
            }
            apply(effect)
            pushUndo(UndoEntry(label: "deleted '\(row.title)'", action: .recreate(row)))
            message = StatusMessage("Deleted '\(row.title)' (u undoes)", kind: .success)
            return [effect]
        case .char("n"), .char("N"), .escape, .char("q"):
            mode = .list
            message = StatusMessage("Kept '\(row.title)'")
            return []
        default:
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
            return refuseSave(&form, "Due: use YYYY-MM-DD, today, tomorrow or +3d.", focus: .due)
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
            let effect = Effect.update(id: id, draft)
            apply(effect)
            pushUndo(UndoEntry(label: "edit of '\(title)'", action: .perform([.update(id: id, original)])))
            message = StatusMessage("Saved '\(title)'", kind: .success)
            return [effect]
        }
        let id = makeID()
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
