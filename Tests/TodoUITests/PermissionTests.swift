import Foundation
import Terminal
import Testing
import TodoUI

@Suite("Permissions: own, read-only shared, public own, public other's, signed out")
@MainActor
struct PermissionTests {
    @Test func ownPrivateRowDeletesAfterConfirmation() {
        let (session, terminal) = makeSession()
        press(session, .char("j"))
        #expect(press(session, .char("d")) == [])
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 4]  Shared 1   Public 2   T Today
             [ ] File taxes                           !!! 2026-03-01
            >[ ] Buy milk                              !!
             [ ] Book dentist                           ! 2026-03-20
             [ ] Call mom
             [x] Water plants                             2026-03-09








            Delete 'Buy milk'? y/n
            """)
        press(session, .char("x"))  // other keys keep the prompt
        #expect(session.state.mode == .confirmDelete(id: "t1"))
        #expect(press(session, .char("y")) == [.delete(id: "t1")])
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 3]  Shared 1   Public 2   T Today
             [ ] File taxes                           !!! 2026-03-01
            >[ ] Book dentist                           ! 2026-03-20
             [ ] Call mom
             [x] Water plants                             2026-03-09









            Deleted 'Buy milk' (u undoes)                            2/4
            """)
    }

    @Test func deleteCanBeDeclined() {
        let (session, terminal) = makeSession()
        press(session, .char("d"))
        #expect(press(session, .char("n")) == [])
        #expect(terminal.lastScreen?.lines.last == "Kept 'File taxes'                                        1/5")
        press(session, .char("d"))
        #expect(press(session, .escape) == [])
        #expect(session.state.visibleCount == 5)
    }

    @Test func readOnlySharedRowExplainsInsteadOfActing() {
        let (session, terminal) = makeSession()
        press(session, .tab)
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
             Todos 4  [Shared 1]  Public 2   T Today
            >[ ] Plan the trip                                        RO












            Bob shared this list read-only.                          1/1
            """)
        #expect(press(session, .char("e")) == [])
        #expect(terminal.lastScreen?.lines.last == "Bob shared this list read-only.                          1/1")
        #expect(session.state.mode == .list)
        #expect(press(session, .enter) == [])
        #expect(press(session, .char(" ")) == [])
        #expect(terminal.lastScreen?.lines.last == "Bob shared this list read-only.                          1/1")
        #expect(press(session, .char("d")) == [])
        #expect(terminal.lastScreen?.lines.last == "Can't delete: bob shared this list read-only.            1/1")
        #expect(press(session, .char("a")) == [])
        #expect(terminal.lastScreen?.lines.last?.hasPrefix("Select a list shared with you to add to it.") == true)
    }

    @Test func publicOwnRowIsMarkedTrashedNotDeleted() {
        let (session, terminal) = makeSession()
        press(session, .backTab, .char("j"))
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
             Todos 4   Shared 1  [Public 2]  T Today
             [ ] Fix the printer                        !             RO
            >[ ] Clean the kitchen                        2026-03-11











            ? help · a add · / filter · q quit                       2/2
            """)
        // One rule: a key that removes something asks first, a public post included; a wrong key says how to answer.
        #expect(press(session, .char("d")) == [])
        #expect(terminal.lastScreen?.lines.last == "Delete public post 'Clean the kitchen'? y/n")
        #expect(press(session, .char("z")) == [])
        #expect(terminal.lastScreen?.lines.last == "Delete public post 'Clean the k…'? y/n (y confirms, n keeps)")
        #expect(press(session, .char("y")) == [.setTrashed(id: "p1", true)])
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
             Todos 4   Shared 1  [Public 1]  T Today
            >[ ] Fix the printer                        !             RO












            Deleted public post 'Clean the kitchen' (u undoes)       1/1
            """)
        #expect(press(session, .char("u")) == [.setTrashed(id: "p1", false)])
        #expect(session.state.selectedRow?.id == "p1")
        #expect(session.state.selectedRow?.isPending == true)
        press(session, .char("e"))
        guard case .edit(let form) = session.state.mode else {
            Issue.record("public own row should open the form")
            return
        }
        #expect(form.targetID == "p1")
    }

    @Test func publicRowOfSomeoneElseIsRefused() {
        let (session, terminal) = makeSession()
        press(session, .backTab)
        #expect(session.state.selectedRow?.id == "p2")
        #expect(terminal.lastScreen?.lines.last == "Posted by carol.                                         1/2")
        #expect(press(session, .char("d")) == [])
        #expect(terminal.lastScreen?.lines.last == "Can't delete: only carol can change this todo.           1/2")
        #expect(press(session, .char(" ")) == [])
        #expect(press(session, .char("e")) == [])
        #expect(terminal.lastScreen?.lines.last == "Posted by carol.                                         1/2")
        #expect(session.state.undoDepth == 0)
    }

    @Test func signedOutShowsPublicReadOnlyAndTodosUnavailable() {
        let readOnly = [Fixture.publicOwn, Fixture.publicOther].map { row -> TodoRow in
            var row = row
            row.canUpdate = false
            row.trashBehaviour = .refuse(reason: "sign in to change the public board.")
            row.lockReason = "signed out."
            return row
        }
        let (session, terminal) = makeSession(rows: readOnly, status: Fixture.signedOut)
        expectScreen(terminal, """
            CloudTodo · laptop · signed out: press L to sign in
            [Todos 0]  Shared 0   Public 2   T Today

              Signed out: this device holds no todos of yours yet.
              Press L to sign in.










            ? help · a add · / filter · q quit
            """)
        #expect(press(session, .char("a")) == [])
        #expect(terminal.lastScreen?.lines.last == "Signed out: sign in to add todos (press L).")
        press(session, .backTab)
        expectScreen(terminal, """
            CloudTodo · laptop · signed out: press L to sign in
             Todos 0   Shared 0  [Public 2]  T Today
            >[ ] Fix the printer                        !             RO
             [ ] Clean the kitchen                        2026-03-11  RO











            Signed out.                                              1/2
            """)
        #expect(press(session, .char("a")) == [])
        #expect(terminal.lastScreen?.lines.last == "Signed out: the public board is read-only; press L to s… 1/2")
        #expect(press(session, .char("d"), .char(" "), .char("e")) == [])
    }
}
