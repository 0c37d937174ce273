import Foundation
public import Terminal
import TodoPlanning

extension AppState {
    /// Handles one key: updates the state and returns what the executable must do.
    public mutating func reduce(_ key: Key) -> [Effect] {
        if key == .resize { return [] }
        if key == .ctrl("c") { return [.quit] }
        if loading != nil {
            keyPressedWhileLoading = true
            followsEndWhileLoading = false
        }
        switch mode {
        case .list:
            message = nil
            guard let command = keymap.command(for: key) else { return [] }
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
        case .detail(let view):
            return reduceDetail(view, key)
        case .prompt(var prompt):
            return reducePrompt(&prompt, key)
        case .confirmBulkDelete(let ids):
            return reduceConfirmBulkDelete(ids: ids, key)
        case .calendar(let view):
            return reduceCalendar(view, key)
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
        if showsToday, let effects = performInToday(command) { return effects }
        switch command {
        case .moveUp: select(selection - 1)
        case .moveDown: select(selection + 1)
        case .pageUp:
            scroll = max(0, scroll - listHeight)
            select(selection - listHeight)
        case .pageDown:
            scroll += listHeight
            select(selection + listHeight)
        case .top:
            select(0)
            // While rows arrive, the top stays shown (rows listed first may still come).
            if loading != nil { keyPressedWhileLoading = false }
        case .bottom:
            select(visible.count - 1)
            if loading != nil { followsEndWhileLoading = true }
        case .add: startAdd()
        case .edit: startEdit()
        case .toggleDone: return toggleDone()
        case .trash: return trash()
        case .undo: return undoKeepingRedo()
        case .redo: return redo()
        case .filter:
            filterBeforeEditing = appliedFilterText
            mode = .filter
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
        case .signIn: startSignIn()
        case .newList: startNewList()
        case .move: startMove()
        case .share: startShare()
        case .invitations: showInvitations()
        case .leave: startLeave()
        case .details: openDetails()
        case .today: toggleToday()
        case .next: toggleNext()
        case .calendar: toggleCalendar()
        case .sort: return cycleSortOrder()
        case .nextSavedFilter: cycleSavedFilter()
        case .nextContext: return cycleContext()
        case .saveFilter: startSavingFilter()
        case .skip: return skipOccurrence()
        case .mark: toggleMark()
        case .clearMarks: clearMarks()
        case .priority: startPrompt { .priority(ids: $0) }
        case .addTag: startPrompt { .addTag(ids: $0) }
        case .removeTag: startPrompt { .removeTag(ids: $0) }
        }
        return []
    }

    /// The Today view's own handling of movement and tabs; nil for the commands it shares with the tabs.
    private mutating func performInToday(_ command: Command) -> [Effect]? {
        switch command {
        case .moveUp: moveInAgenda(by: -1)
        case .moveDown: moveInAgenda(by: 1)
        case .pageUp: moveInAgenda(by: -listHeight)
        case .pageDown: moveInAgenda(by: listHeight)
        case .top: moveInAgenda(by: .min)
        case .bottom: moveInAgenda(by: .max)
        case .nextTab, .prevTab:
            // Leaves the Today or Next view for the tab it was opened from.
            hideAgenda()
            message = nil
        case .toggleCompleted:
            message = StatusMessage("The \(agendaKind == .next ? "Next" : "Today") view lists open todos only.")
        default: return nil
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
            message = StatusMessage("Signed out: nothing can change" + keyed(.signIn, otherwise: ".") { "; press \($0) to sign in." }, kind: .warning)
        case .shared:
            guard let list = contextList else {
                message = StatusMessage("Select a list shared with you to add to it.", kind: .warning)
                return
            }
            guard list.canAddItems else {
                message = StatusMessage("Read-only: '\(list.title)' is shared with you read-only.", kind: .warning)
                return
            }
            mode = .edit(withContextDefaults(EditForm(newIn: .shared, list: list)))
        case .todos where status.isSignedOut:
            message = StatusMessage("Signed out: sign in to add todos" + keyed(.signIn, otherwise: ".") { " (press \($0))." }, kind: .warning)
        case .public where status.isSignedOut:
            message = StatusMessage("Signed out: the public board is read-only" + keyed(.signIn, otherwise: ".") { "; press \($0) to sign in." }, kind: .warning)
        case .todos:
            mode = .edit(withContextDefaults(EditForm(newIn: .private, list: contextList)))
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
        mode = .edit(editForm(for: row))
    }

    mutating func refuseLocked(_ row: TodoRow) {
        let way = status.connection == .signedOut ? keyed(.signIn) { " Press \($0) to sign in." } : ""
        message = StatusMessage(Self.lockSentence(row) + way, kind: .warning)
    }

    /// Why a row cannot be changed, as a sentence (the sync layer's reason says what is true: read-only, owner only…).
    static func lockSentence(_ row: TodoRow) -> String {
        let reason = row.lockReason ?? "you can't change this todo"
        return reason.prefix(1).uppercased() + reason.dropFirst() + (reason.hasSuffix(".") || reason.hasSuffix(")") ? "" : ".")
    }

    private mutating func toggleDone() -> [Effect] {
        if !marked.isEmpty { return toggleDoneMarked() }
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
        if !marked.isEmpty {
            startBulkDelete()
            return []
        }
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

    /// Puts back what `action` undoes, on screen, and returns the effects that do it.
    mutating func undoEffects(_ action: UndoEntry.Action) -> [Effect] {
        switch action {
        case .perform(let inverse):
            for effect in inverse { applyLocally(effect) }
            return inverse
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
            return recreated
        case .untrash(let row):
            let effect = Effect.setTrashed(id: row.id, false)
            applyLocally(effect, template: row)
            selectedIDs[tab] = row.id
            return [effect]
        case .several(let actions):
            return actions.flatMap { undoEffects($0) }
        }
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
                message = StatusMessage("Deleted public post '\(row.title)'\(undoNote)", kind: .success)
                return [effect]
            }
            let effect = Effect.delete(id: id)
            if row.isList {
                let members = rows(in: Tab(row.scope)).filter { !$0.isList && $0.listID == id }
                apply(effect)
                pushUndo(UndoEntry(label: "deleted list '\(row.title)'", action: .recreate([row] + members)))
                message = StatusMessage(
                    "Deleted list '\(row.title)' and \(Formatting.counted(members.count, "todo"))\(undoNote)", kind: .success)
                return [effect]
            }
            apply(effect)
            pushUndo(UndoEntry(label: "deleted '\(row.title)'", action: .recreate([row])))
            message = StatusMessage("Deleted '\(row.title)'\(undoNote)", kind: .success)
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
            filterError = nil
            activeFilter = nil
            tagPrefilter = nil
            appliedFilterText = ""
            mode = .list
            recomputeVisible()
        case .enter:
            mode = .list
            if let filterError {
                // The filter this editing started from stays in effect (not a word half typed on the way).
                let error = filterError
                filter = LineEditor(filterBeforeEditing)
                applyFilterText(filterBeforeEditing)
                recomputeVisible()
                let kept = appliedFilterText.isEmpty ? "no filter" : "'\(appliedFilterText)'"
                message = StatusMessage("\(error) (still \(kept))", kind: .error)
                return
            }
            if appliedFilterText.isEmpty { return }
            message = StatusMessage("Filter '\(appliedFilterText)': \(Formatting.grouped(shownCount)) shown (/ then Esc clears)")
        case .up: showsToday ? moveInAgenda(by: -1) : select(selection - 1)
        case .down: showsToday ? moveInAgenda(by: 1) : select(selection + 1)
        case .tab, .backTab: break
        default:
            let before = appliedFilterText
            let typedBefore = filter.text
            filter.handle(key)
            guard filter.text != typedBefore, applyFilterText(filter.text) else { return }
            // Typing more words only narrows the list: search the rows already shown.
            if Self.narrows(appliedFilterText, from: before) { narrowVisible() } else { recomputeVisible() }
        }
    }

    /// Number of todos listed (of the Today view while it shows).
    var shownCount: Int { showsToday ? agendaTodoCount : visible.count }
}

/// Handles one key on `state` and returns the effects to perform (free-function spelling).
public func reduce(_ state: inout AppState, _ key: Key) -> [Effect] {
    state.reduce(key)
}
