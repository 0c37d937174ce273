import Foundation
import Terminal
import Testing
import TodoPlanning
import TodoUI

/// Lists on the Todos tab, lists shared with alice on the Shared tab.
enum ListFixture {
    static let groceries = TodoRow(
        id: "L1", title: "Groceries", kind: .list,
        sharing: ListSharing(participants: [
            ShareParticipant(account: "bob", access: .readWrite, hasAccepted: true),
            ShareParticipant(account: "carol", access: .readOnly, hasAccepted: false),
        ]))
    static let work = TodoRow(id: "L2", title: "Work", kind: .list)
    static let own: [TodoRow] = [
        TodoRow(id: "t1", title: "Call mom"),
        groceries,
        TodoRow(id: "t2", title: "Buy milk", priority: 2, listID: "L1"),
        TodoRow(id: "t3", title: "Eggs", isCompleted: true, listID: "L1"),
        work,
        TodoRow(id: "t4", title: "File taxes", due: Fixture.due(2026, 3, 1), priority: 3, listID: "L2"),
    ]

    static let trip = TodoRow(
        id: "S1", title: "Trip", scope: .shared, canUpdate: false, canDelete: false,
        trashBehaviour: .refuse(reason: "only its owner can rename or delete this list; you can add and change its todos (x leaves it)"),
        lockReason: "only its owner can rename or delete this list; you can add and change its todos", kind: .list, canAddItems: true,
        sharing: ListSharing(owner: "bob", access: .readWrite))
    static let budget = TodoRow(
        id: "S2", title: "Budget", scope: .shared, canUpdate: false, canDelete: false,
        trashBehaviour: .refuse(reason: "shared with you read-only: only its owner can change it or add to it (x leaves it)"),
        lockReason: "shared with you read-only: only its owner can change it or add to it", kind: .list, canAddItems: false,
        sharing: ListSharing(owner: "dave", access: .readOnly))
    static let shared: [TodoRow] = [
        trip,
        TodoRow(id: "s1", title: "Book hotel", scope: .shared, listID: "S1"),
        budget,
        TodoRow(
            id: "s2", title: "Review costs", scope: .shared, canUpdate: false, canDelete: false,
            trashBehaviour: .refuse(reason: "shared with you read-only: only its owner can change it"),
            lockReason: "shared with you read-only: only its owner can change it", listID: "S2"),
    ]

    static var all: [TodoRow] { own + shared }
}

@Suite("Lists and sharing: grouped lists, list keys, share dialog, Shared tab, invitations")
@MainActor
struct ListShareGoldenTests {
    @Test func todosTabGroupsTodosUnderTheirLists() {
        let (_, terminal) = makeSession(rows: ListFixture.all)
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 3]  Shared 2   Public 0   T Today
            >[ ] Call mom
             Groceries · 1 open · shared with bob, carol (ro) (invi…
             [ ] Buy milk                              !!
             [x] Eggs
             Work · 1 open
             [ ] File taxes                           !!! 2026-03-01







            ? help · a add · / filter · q quit                       1/6
            """)
    }

    @Test func addOnAListHeadingAddsIntoThatList() {
        let (session, terminal) = makeSession(rows: ListFixture.all)
        press(session, .char("j"), .char("a"))
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 3]  Shared 2   Public 0   T Today
             New todo · Todos › Groceries

            >    Title
                 Notes
                   Due
              Priority
                  Tags
                Repeat
                  Wait
             Scheduled
                 Until
               Depends
               Project
            Enter save · Esc cancel · Tab/↑↓ field
            """)
        type(session, "Bread")
        let effects = press(session, .enter)
        #expect(effects == [.create(id: "n1", TodoDraft(title: "Bread", listID: "L1"))])
        #expect(session.state.rows(in: .todos).first { $0.id == "n1" }?.listID == "L1")
        #expect(session.state.openCount(inList: "L1") == 2)
    }

    @Test func addOnATodoInAListAddsIntoItsList() {
        let (session, _) = makeSession(rows: ListFixture.all)
        press(session, .char("G"), .char("a"))
        type(session, "Pay rent")
        #expect(press(session, .enter) == [.create(id: "n1", TodoDraft(title: "Pay rent", listID: "L2"))])
    }

    @Test func newListHasOnlyATitle() {
        let (session, terminal) = makeSession(rows: ListFixture.all)
        press(session, .char("n"))
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 3]  Shared 2   Public 0   T Today
             New list · Todos

            >    Title










            Enter save · Esc cancel · Tab/↑↓ field
            """)
        #expect(press(session, .enter) == [])
        #expect(terminal.lastScreen?.lines.contains { $0.contains("A list needs a title.") } == true)
        type(session, "Books")
        #expect(press(session, .enter) == [.create(id: "n1", TodoDraft(title: "Books", kind: .list))])
        #expect(session.state.rows(in: .todos).map(\.title) == ["Call mom", "Books", "Groceries", "Buy milk", "Eggs", "Work", "File taxes"])
    }

    @Test func renameAList() {
        let (session, terminal) = makeSession(rows: ListFixture.all)
        press(session, .char("j"), .char("e"))
        #expect(terminal.lastScreen?.lines[2] == " Rename list")
        press(session, .ctrl("u"))
        type(session, "Shopping")
        #expect(press(session, .enter) == [.update(id: "L1", TodoDraft(title: "Shopping", kind: .list))])
        #expect(session.state.rows(in: .todos).first { $0.id == "L1" }?.title == "Shopping")
        #expect(session.state.rows(in: .todos).filter { $0.listID == "L1" }.count == 2)
    }

    @Test func deleteAListAsksWithItsTodoCount() {
        let (session, terminal) = makeSession(rows: ListFixture.all)
        press(session, .char("j"), .char("d"))
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 3]  Shared 2   Public 0   T Today
             [ ] Call mom
            >Groceries · 1 open · shared with bob, carol (ro) (invi…
             [ ] Buy milk                              !!
             [x] Eggs
             Work · 1 open
             [ ] File taxes                           !!! 2026-03-01







            Delete list 'Groceries' and its 2 todos? y/n
            """)
        #expect(press(session, .char("y")) == [.delete(id: "L1")])
        #expect(session.state.rows(in: .todos).map(\.id) == ["t1", "L2", "t4"])
        #expect(terminal.lastScreen?.lines.last?.hasPrefix("Deleted list 'Groceries' and 2 todos") == true)
    }

    @Test func spaceOnAListExplains() {
        let (session, terminal) = makeSession(rows: ListFixture.all)
        #expect(press(session, .char("j"), .char(" ")) == [])
        #expect(terminal.lastScreen?.lines.last?.hasPrefix("Space marks todos done; 'Groceries' is a list.") == true)
    }

    @Test func moveATodoToAnotherList() {
        let (session, terminal) = makeSession(rows: ListFixture.all)
        #expect(press(session, .char("m")) == [])
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 3]  Shared 2   Public 0   T Today
             Move 'Call mom' to

             > Groceries
               Work
               Trip · bob's








            j/k choose · Enter move · Esc cancel
            """)
        #expect(press(session, .char("j"), .enter) == [.move(id: "t1", toList: "L2")])
        #expect(session.state.rows(in: .todos).map(\.id) == ["L1", "t2", "t3", "L2", "t4", "t1"])
        #expect(session.state.selectedRow?.id == "t1")
        #expect(press(session, .char("u")) == [.move(id: "t1", toList: nil)])
        #expect(session.state.rows(in: .todos).first?.id == "t1")
        press(session, .char("m"))
        #expect(press(session, .escape) == [])
        #expect(session.state.mode == .list)
    }

    @Test func moveIntoAListSharedWithMeReadWriteOnly() {
        let (session, _) = makeSession(rows: ListFixture.all)
        press(session, .char("m"))
        guard case .pickList(let picker) = session.state.mode else {
            Issue.record("no picker")
            return
        }
        #expect(picker.options.map(\.title) == ["Groceries", "Work", "Trip"])
        #expect(picker.options.last?.owner == "bob")
    }

    @Test func shareDialogInvitesChangesAndRemovesPeople() {
        let (session, terminal) = makeSession(rows: ListFixture.all, height: 18)
        press(session, .char("j"), .char("s"))
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 3]  Shared 2   Public 0   T Today
             Share 'Groceries'

            >    With
               Access read-write (Tab changes)

             People
               bob                      read-write  accepted
               carol                    read-only   invited







            Enter invite · Tab access · ↓ people · ^X stop sharing · Esc
            """)
        type(session, "dave")
        press(session, .tab)
        #expect(press(session, .enter) == [.share(listID: "L1", account: "dave", .readOnly)])
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 3]  Shared 2   Public 0   T Today
             Share 'Groceries'

            >    With
               Access read-only (Tab changes)

             People
               bob                      read-write  accepted
               carol                    read-only   invited
               dave                     read-only   invited






            Invited dave (read-only)
            """)
        #expect(press(session, .down, .char("p")) == [.share(listID: "L1", account: "bob", .readOnly)])
        // Removing someone asks first; n keeps them, a wrong key repeats the question, y removes.
        #expect(press(session, .char("j"), .char("x")) == [])
        #expect(terminal.lastScreen?.lines.last == "Remove carol from 'Groceries'? y/n")
        #expect(press(session, .char("n")) == [])
        #expect(press(session, .char("x"), .char("z")) == [])
        #expect(terminal.lastScreen?.lines.last == "Remove carol from 'Groceries'? y/n (y confirms, n keeps)")
        #expect(press(session, .char("y")) == [.removeParticipant(listID: "L1", account: "carol")])
        guard case .share(let dialog) = session.state.mode else {
            Issue.record("dialog closed")
            return
        }
        #expect(dialog.participants.map(\.account) == ["bob", "dave"])
        // Stopping the share asks too.
        #expect(press(session, .ctrl("x")) == [])
        #expect(terminal.lastScreen?.lines.last == "Stop sharing 'Groceries' with everyone? y/n")
        #expect(press(session, .char("y")) == [.stopSharing(listID: "L1")])
        #expect(session.state.mode == .list)
    }

    @Test func shareNeedsAListAndAnOwner() {
        let (session, terminal) = makeSession(rows: ListFixture.all)
        #expect(press(session, .char("s")) == [])
        #expect(terminal.lastScreen?.lines.last?.hasPrefix("Select a list to share it") == true)
        press(session, .tab, .char("s"))
        #expect(terminal.lastScreen?.lines.last?.hasPrefix("Only its owner can share 'Budget'; x leaves it.") == true)
    }

    @Test func sharedTabReadWriteAndReadOnlyLists() {
        let (session, terminal) = makeSession(rows: ListFixture.all)
        press(session, .tab)
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
             Todos 3  [Shared 2]  Public 0   T Today
            >Budget · 1 open · dave's · read-only                     RO
             [ ] Review costs                                         RO
             Trip · 1 open · bob's · read-write
             [ ] Book hotel









            Shared with you read-only: only its owner can change it… 1/4
            """)
        // Read-write: add into the list, toggle its todo.
        press(session, .char("G"), .char("a"))
        #expect(terminal.lastScreen?.lines[2] == " New todo · Shared › Trip")
        type(session, "Pack")
        #expect(press(session, .enter) == [.create(id: "n1", TodoDraft(title: "Pack", scope: .shared, listID: "S1"))])
        #expect(session.state.rows(in: .shared).map(\.id) == ["S2", "s2", "S1", "s1", "n1"])
        press(session, .char("G"))
        #expect(press(session, .char(" ")) == [.setCompleted(id: "n1", true)])
        // The heading itself is the owner's.
        press(session, .char("g"), .char("j"), .char("j"))
        #expect(session.state.selectedRow?.id == "S1")
        #expect(press(session, .char("e")) == [])
        // Read-write: the refusal says what is true, not "read-only".
        #expect(terminal.lastScreen?.lines.last?.hasPrefix("Only its owner can rename or delete this list; you can") == true)
        #expect(press(session, .char("d")) == [])
        #expect(terminal.lastScreen?.lines.last?.hasPrefix("Can't delete: only its owner can rename or delete") == true)
    }

    @Test func sharedReadOnlyListRefusesEveryEdit() {
        let (session, terminal) = makeSession(rows: ListFixture.all)
        press(session, .tab, .char("j"))
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
             Todos 3  [Shared 2]  Public 0   T Today
             Budget · 1 open · dave's · read-only                     RO
            >[ ] Review costs                                         RO
             Trip · 1 open · bob's · read-write
             [ ] Book hotel









            Shared with you read-only: only its owner can change it. 2/4
            """)
        #expect(press(session, .char("e")) == [])
        #expect(press(session, .char(" ")) == [])
        #expect(press(session, .char("d")) == [])
        #expect(terminal.lastScreen?.lines.last?.hasPrefix("Can't delete: shared with you read-only") == true)
        #expect(press(session, .char("a")) == [])
        #expect(terminal.lastScreen?.lines.last?.hasPrefix("Read-only: 'Budget' is shared with you read-only.") == true)
        #expect(press(session, .char("m")) == [])
        #expect(terminal.lastScreen?.lines.last?.hasPrefix("Shared with you read-only") == true)
    }

    @Test func leaveASharedList() {
        let (session, terminal) = makeSession(rows: ListFixture.all)
        press(session, .tab, .char("G"), .char("x"))
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
             Todos 3  [Shared 2]  Public 0   T Today
             Budget · 1 open · dave's · read-only                     RO
             [ ] Review costs                                         RO
             Trip · 1 open · bob's · read-write
            >[ ] Book hotel









            Leave 'Trip'? Its todos leave this device. y/n
            """)
        #expect(press(session, .char("y")) == [.leave(listID: "S1")])
        #expect(session.state.rows(in: .shared).map(\.id) == ["S2", "s2"])
        press(session, .backTab, .char("x"))
        #expect(terminal.lastScreen?.lines.last?.hasPrefix("x leaves a list shared with you") == true)
    }

    @Test func invitationsAreAnnouncedAndAccepted() {
        var status = Fixture.online
        status.invitations = [
            Invitation(id: "i1", listTitle: "Recipes", owner: "erin", access: .readWrite),
            Invitation(id: "i2", listTitle: "Garden", owner: "bob", access: .readOnly),
        ]
        let (session, terminal) = makeSession(rows: [], status: status)
        press(session, .tab)
        expectScreen(terminal, """
            alice · laptop · online · 2 invitations (i) · synced 2 s ago
             Todos 0  [Shared 0]  Public 0   T Today

              Lists others share with you appear here.
              You have 2 invitations: press i to accept.










            ? help · a add · / filter · q quit
            """)
        press(session, .char("i"))
        expectScreen(terminal, """
            alice · laptop · online · 2 invitations (i) · synced 2 s ago
             Todos 0  [Shared 0]  Public 0   T Today
             Invitations

             > 'Recipes' from erin · read-write
               'Garden' from bob · read-only









            Enter accept · d decline · j/k choose · Esc close
            """)
        #expect(press(session, .char("j"), .enter) == [.accept(invitationID: "i2")])
        #expect(press(session, .char("d")) == [.decline(invitationID: "i1")])
        #expect(session.state.mode == .list)
        #expect(press(session, .char("i")) == [])
        #expect(terminal.lastScreen?.lines.last?.hasPrefix("No invitations") == true)
    }

    @Test func filterKeepsTheHeadingsOfMatches() {
        let (session, terminal) = makeSession(rows: ListFixture.all)
        press(session, .char("/"))
        type(session, "tax")
        #expect(session.state.visibleRows.map(\.id) == ["L2", "t4"])
        press(session, .ctrl("u"))
        type(session, "groc")
        #expect(session.state.visibleRows.map(\.id) == ["L1"])
        press(session, .escape, .char("c"))
        #expect(session.state.visibleRows.map(\.id) == ["t1", "L1", "t2", "L2", "t4"])
        _ = terminal
    }
}
