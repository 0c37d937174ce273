import Foundation
import Terminal
import Testing
import TodoUI

/// Undo that brings back the same records, questions that say how to answer them, and a view that data from
/// elsewhere never moves.
@Suite("Undo, confirmations and a steady view")
@MainActor
struct TrustGoldenTests {
    @Test func undoOfADeleteKeepsTheIdTheDoneStateAndOlderSteps() {
        let (session, terminal) = makeSession()
        press(session, .char("g"), .char("j"), .char("j"), .char("j"))
        #expect(session.state.selectedRow?.id == "t3")
        #expect(press(session, .char(" ")) == [.setCompleted(id: "t3", true)])
        press(session, .char("G"))
        #expect(session.state.selectedRow?.id == "t3")
        #expect(press(session, .char("d")) == [])
        #expect(terminal.lastScreen?.lines.last == "Delete 'Call mom'? y/n")
        #expect(press(session, .char("y")) == [.delete(id: "t3")])
        // Back under its own id, done as it was.
        #expect(press(session, .char("u")) == [
            .create(id: "t3", TodoDraft(title: "Call mom", notes: "Sunday afternoon")), .setCompleted(id: "t3", true),
        ])
        #expect(session.state.rows(in: .todos).first { $0.id == "t3" }?.isCompleted == true)
        // The older step names the same record, so it still applies.
        #expect(press(session, .char("u")) == [.setCompleted(id: "t3", false)])
        #expect(session.state.rows(in: .todos).first { $0.id == "t3" }?.isCompleted == false)
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 4]  Shared 1   Public 2   T Today
             [ ] File taxes                           !!! 2026-03-01
             [ ] Buy milk                              !!
             [ ] Book dentist                           ! 2026-03-20
            >[ ] Call mom                                            •
             [x] Water plants                             2026-03-09








            Undid: completed 'Call mom'                              4/5
            """)
    }

    @Test func deletingAListCanBeUndone() {
        let (session, terminal) = makeSession(rows: ListFixture.all)
        let before = session.state.rows(in: .todos).map(\.id)
        press(session, .char("g"))
        while session.state.selectedRow?.id != "L1" { press(session, .char("j")) }
        #expect(press(session, .char("d")) == [])
        #expect(terminal.lastScreen?.lines.last == "Delete list 'Groceries' and its 2 todos? y/n")
        #expect(press(session, .char("y")) == [.delete(id: "L1")])
        #expect(!session.state.rows(in: .todos).contains { $0.id == "L1" || $0.listID == "L1" })
        #expect(terminal.lastScreen?.lines.last?.hasPrefix("Deleted list 'Groceries' and 2 todos (u undoes)") == true)
        let effects = press(session, .char("u"))
        #expect(effects == [
            .create(id: "L1", TodoDraft(title: "Groceries", kind: .list)),
            .create(id: "t2", TodoDraft(title: "Buy milk", priority: 2, listID: "L1")),
            .create(id: "t3", TodoDraft(title: "Eggs", listID: "L1")), .setCompleted(id: "t3", true),
        ])
        #expect(Set(session.state.rows(in: .todos).map(\.id)) == Set(before))
        #expect(session.state.selectedRow?.id == "L1")
    }

    @Test func aWrongKeyAtAQuestionSaysHowToAnswerAndKeepsIt() {
        let (session, terminal) = makeSession()
        press(session, .char("d"))
        #expect(press(session, .char("x"), .enter) == [])
        #expect(terminal.lastScreen?.lines.last == "Delete 'File taxes'? y/n (y confirms, n keeps)")
        #expect(session.state.mode == .confirmDelete(id: "t2"))
        #expect(press(session, .escape) == [])
        #expect(terminal.lastScreen?.lines.last?.hasPrefix("Kept 'File taxes'") == true)
    }

    @Test func aRemoteEditOfTheSelectedTodoNeverMovesTheView() {
        let rows = (0..<30).map { TodoRow(id: String(format: "r%02d", $0), title: String(format: "Todo %02d", $0)) }
        let (session, terminal) = makeSession(rows: rows)
        for _ in 0..<15 { press(session, .char("j")) }
        #expect(session.state.selectedRow?.id == "r15")
        let scroll = session.state.scroll
        #expect(scroll == 3)
        let screenBefore = terminal.lastScreen?.lines.dropLast()

        // Another device renames the selected todo: it sorts last now, but the view stays and so does the selection.
        var renamed = rows[15]
        renamed.title = "Zebra"
        session.apply(.changes(RowChanges(rows: [renamed]), status: Fixture.online))
        #expect(session.state.scroll == scroll)
        #expect(session.state.selectedRow?.id == "r15")
        #expect(terminal.lastScreen?.lines.last?.hasSuffix("30/30") == true)
        #expect(terminal.lastScreen?.lines[2] == screenBefore?[2])

        // A change above the window keeps the rows on screen where they were.
        var early = rows[0]
        early.title = "Todo 00, edited"
        session.apply(.changes(RowChanges(rows: [early]), status: Fixture.online))
        #expect(session.state.scroll == scroll)

        // A key that acts on the selection first shows it, then acts.
        #expect(press(session, .char(" ")) == [])
        #expect(session.state.selectedRow?.id == "r15")
        #expect(terminal.lastScreen?.lines.last?.hasPrefix("'Zebra' changed on another device") == true)
        #expect(press(session, .char(" ")) == [.setCompleted(id: "r15", true)])
    }
}
