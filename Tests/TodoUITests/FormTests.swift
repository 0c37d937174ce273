import Foundation
import Terminal
import Testing
import TodoPlanning
import TodoUI

@Suite("Edit form and line editor")
@MainActor
struct FormTests {
    @Test func addATodoWithEveryField() {
        let (session, terminal) = makeSession()
        press(session, .char("a"))
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 4]  Shared 1   Public 2   T Today
             New todo · Todos

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
        type(session, "  Buy bread  ")
        press(session, .tab)
        type(session, "wholegrain")
        press(session, .tab)
        type(session, "tomorrow")
        press(session, .tab)
        type(session, "2")
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 4]  Shared 1   Public 2   T Today
             New todo · Todos

                 Title   Buy bread
                 Notes wholegrain
                   Due tomorrow
            > Priority 2
                  Tags
                Repeat
                  Wait
             Scheduled
                 Until
               Depends
               Project
            Enter save · Esc cancel · Tab/↑↓ field
            """)
        let effects = press(session, .enter)
        let draft = TodoDraft(title: "Buy bread", notes: "wholegrain", due: Fixture.due(2026, 3, 11), priority: 2)
        #expect(effects == [.create(id: "n1", draft)])
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 5]  Shared 1   Public 2   T Today
             [ ] File taxes                           !!! 2026-03-01
            >[ ] Buy bread                             !! 2026-03-11 •
             [ ] Buy milk                              !!
             [ ] Book dentist                           ! 2026-03-20
             [ ] Call mom
             [x] Water plants                             2026-03-09







            Added 'Buy bread'                                        2/6
            """)
        #expect(session.state.selectedRow?.id == "n1")
    }

    @Test func editPrefillsAndSavesChanges() {
        let (session, terminal) = makeSession()
        press(session, .enter)
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 4]  Shared 1   Public 2   T Today
             Edit todo

            >    Title File taxes
                 Notes
                   Due 2026-03-01
              Priority 3
                  Tags
                Repeat
                  Wait
             Scheduled
                 Until
               Depends
               Project
            Enter save · Esc cancel · Tab/↑↓ field
            """)
        press(session, .ctrl("u"))
        type(session, "Pay taxes")
        press(session, .down, .down, .ctrl("u"))
        type(session, "+3d")
        let effects = press(session, .enter)
        // Title and due date changed; the priority (untouched) is not written.
        #expect(effects == [.edit(id: "t2", TodoChanges(title: "Pay taxes", due: .some(Fixture.due(2026, 3, 13))))])
        #expect(session.state.selectedRow?.title == "Pay taxes")
        #expect(terminal.lastScreen?.lines[2] == ">[ ] Pay taxes                            !!! 2026-03-13 •")
    }

    @Test func unchangedEditSavesNothing() {
        let (session, terminal) = makeSession()
        press(session, .char("e"))
        #expect(press(session, .enter) == [])
        #expect(terminal.lastScreen?.lines.last == "No changes.                                              1/5")
    }

    @Test func escCancels() {
        let (session, terminal) = makeSession()
        let before = terminal.text
        press(session, .char("a"))
        type(session, "never mind")
        #expect(press(session, .escape) == [])
        #expect(session.state.mode == .list)
        #expect(terminal.lastScreen?.lines.last == "Not added.                                               1/5")
        #expect(terminal.lastScreen?.lines.dropLast() == before.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).dropLast())
        press(session, .char("e"))
        type(session, "zzz")
        #expect(press(session, .escape) == [])
        #expect(session.state.selectedRow?.title == "File taxes")
    }

    @Test func emptyTitleIsRefused() {
        let (session, terminal) = makeSession()
        press(session, .char("a"))
        type(session, "   ")
        #expect(press(session, .enter) == [])
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 4]  Shared 1   Public 2   T Today
             New todo · Todos
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
             A todo needs a title.
            Enter save · Esc cancel · Tab/↑↓ field
            """)
    }

    @Test func invalidDueDateAndPriorityAreRefusedInline() {
        let (session, terminal) = makeSession()
        press(session, .char("a"))
        type(session, "Plan")
        press(session, .tab, .tab)
        type(session, "next blursday")
        #expect(press(session, .enter) == [])
        #expect(terminal.lastScreen?.lines[14].hasPrefix(" Due: ") == true, "the line under the fields says why")
        guard case .edit(let form) = session.state.mode else {
            Issue.record("form should stay open")
            return
        }
        #expect(form.focus == .due)
        press(session, .ctrl("u"))
        type(session, "2026-02-30")
        #expect(press(session, .enter) == [])
        press(session, .ctrl("u"))
        type(session, "2026-04-01")
        press(session, .tab)
        type(session, "7")
        #expect(press(session, .enter) == [])
        #expect(terminal.lastScreen?.lines[14] == " Priority: 0 (none) to 3 (high).")
        press(session, .backspace)
        type(session, "3")
        #expect(press(session, .enter) == [.create(id: "n1", TodoDraft(title: "Plan", due: Fixture.due(2026, 4, 1), priority: 3))])
    }

    @Test func lineEditorKeys() {
        var editor = LineEditor()
        for c in "hello world" { editor.handle(.char(c)) }
        #expect(editor.cursor == 11)
        for _ in 0..<5 { editor.handle(.left) }
        for c in "big " { editor.handle(.char(c)) }
        #expect(editor.text == "hello big world")
        editor.handle(.home)
        editor.handle(.delete)
        #expect(editor.text == "ello big world")
        editor.handle(.end)
        editor.handle(.backspace)
        #expect(editor.text == "ello big worl")
        editor.handle(.ctrl("a"))
        #expect(editor.cursor == 0)
        editor.handle(.right)
        editor.handle(.right)
        editor.handle(.ctrl("k"))
        #expect(editor.text == "el")
        editor.handle(.ctrl("e"))
        for c in "ephant" { editor.handle(.char(c)) }
        editor.handle(.left)
        editor.handle(.ctrl("u"))
        #expect(editor.text == "t")
        #expect(editor.cursor == 0)
        editor.handle(.backspace)  // nothing before the cursor
        #expect(editor.text == "t")
        editor.handle(.right)
        editor.handle(.right)  // past the end stays at the end
        #expect(editor.cursor == 1)
        #expect(editor.handle(.function(5)) == false)
    }

    @Test func cursorIsPlacedByDisplayWidth() {
        let (session, terminal) = makeSession()
        press(session, .char("a"))
        type(session, "买牛奶")
        #expect(terminal.lastScreen?.cursor == Position(row: 4, col: 11 + 6))
        press(session, .left)
        #expect(terminal.lastScreen?.cursor == Position(row: 4, col: 11 + 4))
        type(session, "x")
        #expect(terminal.lastScreen?.lines[4] == ">    Title 买牛x奶")
        #expect(terminal.lastScreen?.cursor == Position(row: 4, col: 11 + 5))
        press(session, .tab)
        #expect(terminal.lastScreen?.cursor == Position(row: 5, col: 11))
        press(session, .backTab, .up)
        // Back past the first field to the last, Project.
        #expect(terminal.lastScreen?.cursor == Position(row: 14, col: 11))
    }

    @Test func longFieldScrollsToKeepTheCursorVisible() {
        let (session, terminal) = makeSession()
        press(session, .char("a"))
        type(session, String(repeating: "abcdefghij", count: 6))
        #expect(terminal.lastScreen?.lines[4] == ">    Title " + String(String(repeating: "abcdefghij", count: 6).suffix(47)))
        #expect(terminal.lastScreen?.cursor == Position(row: 4, col: 58))
        press(session, .home)
        #expect(terminal.lastScreen?.lines[4] == ">    Title " + String(String(repeating: "abcdefghij", count: 6).prefix(48)))
        #expect(terminal.lastScreen?.cursor == Position(row: 4, col: 11))
    }

    @Test func dueDateParsing() throws {
        let grammar = DueDateGrammar(now: Fixture.now, calendar: Fixture.utc)
        #expect(try grammar.parse("") == nil)
        #expect(try grammar.parse("today") == Fixture.due(2026, 3, 10))
        #expect(try grammar.parse("Tomorrow") == Fixture.due(2026, 3, 11))
        #expect(try grammar.parse("+3d") == Fixture.due(2026, 3, 13))
        #expect(try grammar.parse("2026-12-31") == Fixture.due(2026, 12, 31))
        #expect(throws: DueDateError.self) { try grammar.parse("2026-13-01") }
        #expect(throws: DueDateError.self) { try grammar.parse("soon") }
    }
}

@Suite("Edit form and changes made elsewhere")
@MainActor
struct FormUnderneathTests {
    @Test func aPriorityChangedElsewhereWhileTheFormIsOpenIsShownAndNotOverwritten() {
        let (session, terminal) = makeSession()
        press(session, .char("j"), .char("e"))  // "Buy milk", priority 2
        var changed = TodoRow(id: "t1", title: "Buy milk", priority: 3)
        changed.scope = .private
        session.apply(.changes(RowChanges(rows: [changed]), status: Fixture.online))
        #expect(terminal.lastScreen?.text.contains("changed on another device: priority 2 → 3") == true)
        press(session, .end)
        type(session, " and eggs")
        // Only the title goes out: the other device's priority 3 stays.
        #expect(press(session, .enter) == [.edit(id: "t1", TodoChanges(title: "Buy milk and eggs"))])
        #expect(session.state.selectedRow?.priority == 3)
    }

    @Test func aTodoTrashedElsewhereWhileTheFormIsOpenIsSaid() {
        let (session, terminal) = makeSession()
        press(session, .char("j"), .char("e"))
        session.apply(.changes(RowChanges(removed: ["t1"]), status: Fixture.online))
        #expect(terminal.lastScreen?.text.contains("trashed on another device; saving brings it back") == true)
    }
}

@Suite("Lost values in the app")
@MainActor
struct LostEditNoticeTests {
    @Test func theLosingDeviceIsToldAndUndoRestores() {
        let (session, terminal) = makeSession()
        let sentence = "'Buy milk': your priority 2 lost to 3, set later on another device"
        session.apply(.lostEdit(LostEditNotice(rowID: "t1", lossID: "t1-priority", sentence: sentence, isMine: true)))
        #expect(session.state.message?.text == sentence + " (u restores)")
        #expect(terminal.lastScreen?.text.contains("'Buy milk': your priority 2 lost to 3") == true)
        #expect(press(session, .char("u")) == [.restoreLost(id: "t1", lossID: "t1-priority")])
    }

    @Test func anotherDevicesLossIsShownWithoutAnUndo() {
        let (session, terminal) = makeSession()
        session.apply(.lostEdit(LostEditNotice(rowID: "t1", lossID: "x", sentence: "'Buy milk': priority 2 lost to 3, set later", isMine: false)))
        #expect(terminal.lastScreen?.text.contains("'Buy milk': priority 2 lost to 3, set later") == true)
        #expect(press(session, .char("u")) == [])
    }
}
