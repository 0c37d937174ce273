import Foundation
import Terminal

/// Choosing the list a todo moves to: "No list" first, then every list the todo may go into.
public struct ListPicker: Hashable, Sendable {
    /// One choice: a list row id (nil: no list) and its title.
    public struct Option: Hashable, Sendable {
        /// The list's row id; nil for "No list".
        public var listID: String?
        /// What the picker shows.
        public var title: String
        /// Who shares it, for lists of the Shared tab.
        public var owner: String?
    }

    /// The todo being moved.
    public var todoID: String
    /// Its title, for the heading.
    public var todoTitle: String
    /// The choices.
    public var options: [Option]
    /// The highlighted choice.
    public var selection: Int
    /// The marked todos moved together (empty: only `todoID`).
    public var bulkIDs: [String] = []
}

/// The share dialog of one list: an invite field, its access, and the people it is shared with.
public struct ShareDialog: Hashable, Sendable {
    /// Where the keyboard is.
    public enum Focus: Hashable, Sendable {
        /// Typing an account name to invite.
        case invite
        /// Moving through the people.
        case people
    }

    /// The shared list's row id and title.
    public var listID: String
    public var listTitle: String
    /// The account name being typed.
    public var invite = LineEditor()
    /// The access the invitation grants.
    public var access: ShareAccess = .readWrite
    /// The people, as last known.
    public var participants: [ShareParticipant]
    public var focus: Focus = .invite
    /// The highlighted person when `focus` is `.people`.
    public var selection = 0
    /// A removal waiting for y/n, if any.
    public var confirming: Confirmation?

    /// What the dialog asks before doing it: everything that removes access asks first.
    public enum Confirmation: Hashable, Sendable {
        /// Take this account off the list.
        case removing(account: String)
        /// Stop sharing the list with everyone.
        case stoppingSharing
    }
}

extension AppState {
    /// The list the selection is in: the selected heading, or the list of the selected todo.
    var contextList: TodoRow? {
        guard let row = selectedRow else { return nil }
        if row.isList { return row }
        return row.listID.flatMap { self.row(id: $0) }
    }

    // MARK: commands

    mutating func startNewList() {
        guard tab == .todos else {
            message = StatusMessage("Lists live on the Todos tab: Tab there, then n.", kind: .warning)
            return
        }
        guard !status.isSignedOut else {
            message = StatusMessage("Signed out: sign in to add lists" + keyed(.signIn, otherwise: ".") { " (press \($0))." }, kind: .warning)
            return
        }
        mode = .edit(EditForm(newIn: .private, kind: .list))
    }

    mutating func startMove() {
        if !marked.isEmpty {
            startMovingMarked()
            return
        }
        guard let row = selectedRow, !row.isList else {
            message = StatusMessage("Select a todo to move it to another list.", kind: .warning)
            return
        }
        guard row.canUpdate, row.scope != .public else {
            message = StatusMessage(
                row.scope == .public ? "Public todos are in no list." : Self.lockSentence(row),
                kind: .warning)
            return
        }
        var options: [ListPicker.Option] = []
        if row.scope == .private { options.append(ListPicker.Option(listID: nil, title: "No list")) }
        for list in rows(in: .todos) where list.isList {
            options.append(ListPicker.Option(listID: list.id, title: list.title))
        }
        for list in rows(in: .shared) where list.isList && list.canAddItems {
            options.append(ListPicker.Option(listID: list.id, title: list.title, owner: list.sharing?.owner))
        }
        options.removeAll { $0.listID == row.listID }
        guard !options.isEmpty else {
            message = StatusMessage("No other list to move it to: n creates one.", kind: .warning)
            return
        }
        mode = .pickList(ListPicker(todoID: row.id, todoTitle: row.title, options: options, selection: 0))
    }

    /// The picker for the marked todos: every list a todo may go into ("No list" when all are private).
    private mutating func startMovingMarked() {
        let movable = markedRows.filter { $0.canUpdate && !$0.isList && $0.scope != .public }
        guard let first = movable.first else {
            message = StatusMessage("None of the marked todos can move (read-only or public).", kind: .warning)
            return
        }
        var options: [ListPicker.Option] = []
        if movable.allSatisfy({ $0.scope == .private }) { options.append(ListPicker.Option(listID: nil, title: "No list")) }
        for list in rows(in: .todos) where list.isList {
            options.append(ListPicker.Option(listID: list.id, title: list.title))
        }
        for list in rows(in: .shared) where list.isList && list.canAddItems {
            options.append(ListPicker.Option(listID: list.id, title: list.title, owner: list.sharing?.owner))
        }
        guard !options.isEmpty else {
            message = StatusMessage("No list to move them to: n creates one.", kind: .warning)
            return
        }
        let title = Formatting.counted(movable.count, "marked todo")
        mode = .pickList(ListPicker(todoID: first.id, todoTitle: title, options: options, selection: 0, bulkIDs: movable.map(\.id)))
    }

    mutating func startShare() {
        guard let list = contextList else {
            message = StatusMessage("Select a list to share it (n creates one).", kind: .warning)
            return
        }
        guard list.scope == .private else {
            message = StatusMessage("Only its owner can share '\(list.title)'; x leaves it.", kind: .warning)
            return
        }
        guard !status.isSignedOut else {
            message = StatusMessage("Signed out: sign in to share.", kind: .warning)
            return
        }
        mode = .share(ShareDialog(listID: list.id, listTitle: list.title, participants: list.sharing?.participants ?? []))
    }

    mutating func showInvitations() {
        guard !status.invitations.isEmpty else {
            message = StatusMessage("No invitations: when someone shares a list with you, it waits here.")
            return
        }
        mode = .invitations(selection: 0)
    }

    mutating func startLeave() {
        guard tab == .shared, let list = contextList else {
            message = StatusMessage("x leaves a list shared with you: select one on the Shared tab.", kind: .warning)
            return
        }
        mode = .confirmLeave(id: list.id)
    }

    // MARK: modes

    mutating func reducePicker(_ picker: inout ListPicker, _ key: Key) -> [Effect] {
        switch key {
        case .char("j"), .down: picker.selection = min(picker.selection + 1, picker.options.count - 1)
        case .char("k"), .up: picker.selection = max(picker.selection - 1, 0)
        case .escape, .char("q"):
            mode = .list
            message = StatusMessage("Not moved.")
            return []
        case .enter:
            mode = .list
            let option = picker.options[picker.selection]
            if !picker.bulkIDs.isEmpty { return moveMarked(picker.bulkIDs, to: option) }
            guard let row = row(id: picker.todoID) else { return [] }
            let effect = Effect.move(id: row.id, toList: option.listID)
            let targetScope = option.listID.flatMap { self.row(id: $0)?.scope } ?? .private
            if targetScope == row.scope {
                applyMove(row, to: option.listID)
                pushUndo(UndoEntry(label: "move of '\(row.title)'", action: .perform([.move(id: row.id, toList: row.listID)])))
            } else {
                // Into another owner's zone the todo becomes a new record there; the engine's snapshot shows it.
                tabs[Tab(row.scope)]?.remove(id: row.id)
                recomputeVisible()
            }
            message = StatusMessage("Moved '\(row.title)' to \(option.listID == nil ? "no list" : "'\(option.title)'")", kind: .success)
            return [effect]
        default: break
        }
        mode = .pickList(picker)
        return []
    }

    private mutating func applyMove(_ row: TodoRow, to listID: String?) {
        applyLocally(.move(id: row.id, toList: listID))
        selectedIDs[tab] = row.id
        recomputeVisible()
    }

    mutating func reduceShare(_ dialog: inout ShareDialog, _ key: Key) -> [Effect] {
        var effects: [Effect] = []
        if let confirming = dialog.confirming {
            return answerShareConfirmation(confirming, &dialog, key)
        }
        switch (dialog.focus, key) {
        case (_, .escape):
            mode = .list
            return []
        case (_, .ctrl("x")):
            message = nil
            dialog.confirming = .stoppingSharing
        case (.invite, .tab), (.invite, .backTab):
            dialog.access = dialog.access.toggled
        case (.invite, .down):
            if !dialog.participants.isEmpty {
                dialog.focus = .people
                dialog.selection = 0
            }
        case (.invite, .enter):
            let account = dialog.invite.text.trimmingCharacters(in: .whitespaces)
            guard !account.isEmpty else {
                message = StatusMessage("Type the account name to share with.", kind: .warning)
                break
            }
            if let index = dialog.participants.firstIndex(where: { $0.account == account }) {
                dialog.participants[index].access = dialog.access
            } else {
                dialog.participants.append(ShareParticipant(account: account, access: dialog.access, hasAccepted: false))
            }
            dialog.invite = LineEditor()
            message = StatusMessage("Invited \(account) (\(dialog.access.rawValue))", kind: .success)
            effects = [.share(listID: dialog.listID, account: account, dialog.access)]
        case (.invite, _):
            dialog.invite.handle(key)
        case (.people, .up), (.people, .char("k")):
            if dialog.selection == 0 { dialog.focus = .invite } else { dialog.selection -= 1 }
        case (.people, .down), (.people, .char("j")):
            dialog.selection = min(dialog.selection + 1, dialog.participants.count - 1)
        case (.people, .tab), (.people, .char("p")):
            var person = dialog.participants[dialog.selection]
            person.access = person.access.toggled
            dialog.participants[dialog.selection] = person
            message = StatusMessage("\(person.account) is now \(person.access.rawValue)", kind: .success)
            effects = [.share(listID: dialog.listID, account: person.account, person.access)]
        case (.people, .char("x")), (.people, .char("d")), (.people, .delete), (.people, .backspace):
            message = nil
            dialog.confirming = .removing(account: dialog.participants[dialog.selection].account)
        default:
            break
        }
        mode = .share(dialog)
        return effects
    }

    /// y does what the share dialog asked about, n or Esc keeps things as they are, any other key repeats the question.
    private mutating func answerShareConfirmation(
        _ confirming: ShareDialog.Confirmation, _ dialog: inout ShareDialog, _ key: Key
    ) -> [Effect] {
        var effects: [Effect] = []
        switch key {
        case .char("y"), .char("Y"):
            dialog.confirming = nil
            switch confirming {
            case .stoppingSharing:
                mode = .list
                message = StatusMessage("Stopped sharing '\(dialog.listTitle)'", kind: .success)
                return [.stopSharing(listID: dialog.listID)]
            case .removing(let account):
                dialog.participants.removeAll { $0.account == account }
                message = StatusMessage("Removed \(account) from '\(dialog.listTitle)'", kind: .success)
                effects = [.removeParticipant(listID: dialog.listID, account: account)]
                if dialog.participants.isEmpty { dialog.focus = .invite }
                dialog.selection = min(dialog.selection, max(0, dialog.participants.count - 1))
            }
        case .char("n"), .char("N"), .escape, .char("q"):
            dialog.confirming = nil
            message = StatusMessage("Nothing changed.")
        default:
            message = Self.answerYesOrNo
        }
        mode = .share(dialog)
        return effects
    }

    mutating func reduceInvitations(selection: Int, _ key: Key) -> [Effect] {
        let invitations = status.invitations
        guard !invitations.isEmpty else {
            mode = .list
            return []
        }
        var selection = min(selection, invitations.count - 1)
        switch key {
        case .char("j"), .down: selection = min(selection + 1, invitations.count - 1)
        case .char("k"), .up: selection = max(selection - 1, 0)
        case .enter, .char("a"), .char("y"):
            let invitation = invitations[selection]
            status.invitations.remove(at: selection)
            mode = status.invitations.isEmpty ? .list : .invitations(selection: min(selection, status.invitations.count - 1))
            message = StatusMessage("Accepted '\(invitation.listTitle)' from \(invitation.owner): it appears on the Shared tab", kind: .success)
            return [.accept(invitationID: invitation.id)]
        case .char("d"), .char("n"):
            let invitation = invitations[selection]
            status.invitations.remove(at: selection)
            mode = status.invitations.isEmpty ? .list : .invitations(selection: min(selection, status.invitations.count - 1))
            message = StatusMessage("Declined '\(invitation.listTitle)' from \(invitation.owner)")
            return [.decline(invitationID: invitation.id)]
        case .escape, .char("q"), .char("i"):
            mode = .list
            return []
        default: break
        }
        mode = .invitations(selection: selection)
        return []
    }

    mutating func reduceConfirmLeave(id: String, _ key: Key) -> [Effect] {
        guard let list = row(id: id) else {
            mode = .list
            return []
        }
        switch key {
        case .char("y"), .char("Y"):
            mode = .list
            apply(.delete(id: id))
            message = StatusMessage("Left '\(list.title)'", kind: .success)
            return [.leave(listID: id)]
        case .char("n"), .char("N"), .escape, .char("q"):
            mode = .list
            message = StatusMessage("Still sharing '\(list.title)'")
        default:
            message = Self.answerYesOrNo
        }
        return []
    }

    /// Applies an effect locally and refreshes the list.
    mutating func apply(_ effect: Effect, template: TodoRow? = nil) {
        applyLocally(effect, template: template)
        recomputeVisible()
    }
}
