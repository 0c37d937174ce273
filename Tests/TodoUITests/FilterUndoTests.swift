import Foundation
import Terminal
import Testing
import TodoPlanning
import TodoUI

@Suite("Filter as you type and undo")
@MainActor
struct FilterUndoTests {
    @Test func filterAsYouType() {
        let (session, terminal) = makeSession()
        press(session, .char("/"))
        type(session, "mi")
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 4]  Shared 1   Public 2   T Today
            >[ ] Buy milk                              !!












            /mi
            """)
        #expect(terminal.lastScreen?.cursor == Position(row: 15, col: 3))
        type(session, "l")
        #expect(session.state.visibleRows.map(\.id) == ["t1"])
        press(session, .backspace, .backspace)
        #expect(session.state.visibleCount == 2)  // "m": Buy milk, Call mom
        press(session, .escape)
        #expect(session.state.filter.text == "")
        #expect(session.state.visibleCount == 5)
    }

    @Test func filterMatchesNotesCaseInsensitivelyAndEnterKeepsIt() {
        let (session, terminal) = makeSession()
        press(session, .char("/"))
        type(session, "SUNDAY")
        press(session, .enter)
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 4]  Shared 1   Public 2   T Today      filter: SUNDAY
            >[ ] Call mom












            Filter 'SUNDAY': 1 shown (/ then Esc clears)             1/1
            """)
        #expect(session.state.mode == .list)
        press(session, .char("/"), .escape)
        #expect(session.state.visibleCount == 5)
    }

    @Test func filterWithoutMatches() {
        let (session, terminal) = makeSession()
        press(session, .char("/"))
        type(session, "xyz")
        #expect(terminal.lastScreen?.lines[3] == "  Nothing matches 'xyz'.")
        #expect(terminal.lastScreen?.lines[4] == "  Esc clears the filter.")
        press(session, .enter)
        #expect(terminal.lastScreen?.lines[4] == "  Press / then Esc to clear the filter.")
    }

    @Test func undoAdd() {
        let (session, terminal) = makeSession()
        press(session, .char("a"))
        type(session, "Temp")
        press(session, .enter)
        #expect(session.state.visibleCount == 6)
        #expect(press(session, .char("u")) == [.delete(id: "n1")])
        #expect(session.state.visibleCount == 5)
        #expect(terminal.lastScreen?.lines.last == "Undid: added 'Temp'                                      5/5")
    }

    @Test func undoAddOnThePublicBoardMarksTrashed() {
        let (session, _) = makeSession()
        press(session, .backTab, .char("a"))
        type(session, "Bake a cake")
        #expect(press(session, .enter) == [.create(id: "n1", TodoDraft(title: "Bake a cake", scope: .public))])
        #expect(session.state.selectedRow?.trashBehaviour == .markTrashed)
        #expect(press(session, .char("u")) == [.setTrashed(id: "n1", true)])
    }

    @Test func undoEdit() {
        let (session, _) = makeSession()
        press(session, .char("j"), .char("e"))
        press(session, .end)
        type(session, " and eggs")
        // Only the title changed: only the title is written, and undone.
        #expect(press(session, .enter) == [.edit(id: "t1", TodoChanges(title: "Buy milk and eggs"))])
        #expect(press(session, .char("u")) == [.edit(id: "t1", TodoChanges(title: "Buy milk"))])
        #expect(session.state.selectedRow?.title == "Buy milk")
    }

    @Test func undoToggle() {
        let (session, _) = makeSession()
        press(session, .char("G"))
        #expect(press(session, .char(" ")) == [.setCompleted(id: "t4", false)])
        #expect(press(session, .char("u")) == [.setCompleted(id: "t4", true)])
        #expect(session.state.rows(in: .todos).first { $0.id == "t4" }?.isCompleted == true)
    }

    @Test func undoDeleteCreatesTheTodoAgain() {
        let (session, terminal) = makeSession()
        press(session, .char("d"), .char("y"))
        #expect(session.state.visibleCount == 4)
        let effects = press(session, .char("u"))
        // Under the same id (record name): older undo steps naming it keep working.
        #expect(effects == [.create(id: "t2", TodoDraft(title: "File taxes", due: Fixture.due(2026, 3, 1), priority: 3))])
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 4]  Shared 1   Public 2   T Today
            >[ ] File taxes                           !!! 2026-03-01 •
             [ ] Buy milk                              !!
             [ ] Book dentist                           ! 2026-03-20
             [ ] Call mom
             [x] Water plants                             2026-03-09








            Undid: deleted 'File taxes'                              1/5
            """)
    }

    @Test func undoWithNothingToUndo() {
        let (session, terminal) = makeSession()
        #expect(press(session, .char("u")) == [])
        #expect(terminal.lastScreen?.lines.last == "Nothing to undo.                                         1/5")
    }

    @Test func undoStackIsBounded() {
        let (session, _) = makeSession()
        for _ in 0..<(AppState.undoLimit + 10) { press(session, .char("g"), .char(" ")) }
        #expect(session.state.undoDepth == AppState.undoLimit)
    }
}
