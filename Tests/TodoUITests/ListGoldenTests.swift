import Foundation
import Terminal
import Testing
import TodoUI

@Suite("List: movement, tabs, toggles, header and empty states")
@MainActor
struct ListGoldenTests {
    @Test func firstFrame() {
        let (_, terminal) = makeSession()
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 4]  Shared 1   Public 2   T Today
            >[ ] File taxes                           !!! 2026-03-01
             [ ] Buy milk                              !!
             [ ] Book dentist                           ! 2026-03-20
             [ ] Call mom
             [x] Water plants                             2026-03-09








            ? help · a add · / filter · q quit                       1/5
            """)
    }

    @Test func moveDownAndUpWithVimKeysAndArrows() {
        let (session, terminal) = makeSession()
        press(session, .char("j"), .char("j"))
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 4]  Shared 1   Public 2   T Today
             [ ] File taxes                           !!! 2026-03-01
             [ ] Buy milk                              !!
            >[ ] Book dentist                           ! 2026-03-20
             [ ] Call mom
             [x] Water plants                             2026-03-09








            ? help · a add · / filter · q quit                       3/5
            """)
        #expect(session.state.selectedRow?.id == "t5")
        press(session, .down, .down, .down, .down)  // stops at the last row
        #expect(session.state.selectedRow?.id == "t4")
        press(session, .char("k"))
        #expect(session.state.selectedRow?.id == "t3")
        press(session, .up, .up, .up, .up, .up)  // stops at the first row
        #expect(session.state.selectedRow?.id == "t2")
    }

    @Test func topAndBottom() {
        let (session, terminal) = makeSession()
        press(session, .char("G"))
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 4]  Shared 1   Public 2   T Today
             [ ] File taxes                           !!! 2026-03-01
             [ ] Buy milk                              !!
             [ ] Book dentist                           ! 2026-03-20
             [ ] Call mom
            >[x] Water plants                             2026-03-09








            ? help · a add · / filter · q quit                       5/5
            """)
        press(session, .char("g"))
        #expect(session.state.selection == 0)
        press(session, .end)
        #expect(session.state.selection == 4)
        press(session, .home)
        #expect(session.state.selection == 0)
    }

    @Test func pagingScrollsByAPage() {
        let rows = (1...40).map { TodoRow(id: String(format: "r%02d", $0), title: String(format: "Task %02d", $0)) }
        let (session, terminal) = makeSession(rows: rows)
        press(session, .ctrl("d"))
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 40]  Shared 0   Public 0   T Today
            >[ ] Task 14
             [ ] Task 15
             [ ] Task 16
             [ ] Task 17
             [ ] Task 18
             [ ] Task 19
             [ ] Task 20
             [ ] Task 21
             [ ] Task 22
             [ ] Task 23
             [ ] Task 24
             [ ] Task 25
             [ ] Task 26
            ? help · a add · / filter · q quit                     14/40
            """)
        #expect(session.state.selection == 13)
        press(session, .pageDown, .pageDown)
        #expect(session.state.selection == 39)
        #expect(session.state.scroll == 27)
        press(session, .ctrl("u"))
        #expect(session.state.selection == 26)
        press(session, .pageUp, .pageUp)
        #expect(session.state.selection == 0)
        #expect(session.state.scroll == 0)
    }

    @Test func spaceTogglesDoneAndMarksPending() {
        let (session, terminal) = makeSession()
        let effects = press(session, .char(" "))
        #expect(effects == [.setCompleted(id: "t2", true)])
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 3]  Shared 1   Public 2   T Today
            >[ ] Buy milk                              !!
             [ ] Book dentist                           ! 2026-03-20
             [ ] Call mom
             [x] File taxes                           !!! 2026-03-01 •
             [x] Water plants                             2026-03-09








            Done: 'File taxes'                                       1/5
            """)
        // The selection stays on the same position; the completed row sank to the bottom.
        #expect(session.state.selectedRow?.id == "t1")
    }

    @Test func cHidesAndShowsCompleted() {
        let (session, terminal) = makeSession()
        press(session, .char("c"))
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 4]  Shared 1   Public 2   T Today    completed hidden
            >[ ] File taxes                           !!! 2026-03-01
             [ ] Buy milk                              !!
             [ ] Book dentist                           ! 2026-03-20
             [ ] Call mom









            Hiding completed todos                                   1/4
            """)
        press(session, .char("c"))
        #expect(session.state.visibleCount == 5)
        #expect(session.state.showCompleted)
    }

    @Test func tabAndShiftTabSwitchTabs() {
        let (session, terminal) = makeSession()
        press(session, .tab)
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
             Todos 4  [Shared 1]  Public 2   T Today
            >[ ] Plan the trip                                        RO












            Bob shared this list read-only.                          1/1
            """)
        press(session, .tab)
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
             Todos 4   Shared 1  [Public 2]  T Today
            >[ ] Fix the printer                        !             RO
             [ ] Clean the kitchen                        2026-03-11











            Posted by carol.                                         1/2
            """)
        press(session, .tab)
        #expect(session.state.tab == .todos)
        press(session, .backTab)
        #expect(session.state.tab == .public)
    }

    @Test func tabsRememberTheirSelection() {
        let (session, _) = makeSession()
        press(session, .char("j"), .tab, .tab, .char("j"), .backTab, .backTab)
        #expect(session.state.selectedRow?.id == "t1")
        press(session, .backTab)
        #expect(session.state.selectedRow?.id == "p1")
    }

    @Test func refreshAndQuit() {
        let (session, terminal) = makeSession()
        #expect(press(session, .char("r")) == [.refresh])
        #expect(terminal.lastScreen?.lines.last?.hasPrefix("Refreshing…") == true)
        #expect(press(session, .char("q")) == [.quit])
        #expect(press(session, .ctrl("c")) == [.quit])
        press(session, .char("a"))
        #expect(press(session, .ctrl("c")) == [.quit])
    }

    @Test func unknownKeysDoNothing() {
        let (session, terminal) = makeSession()
        let before = terminal.text
        #expect(press(session, .char("z"), .function(7), .left) == [])
        #expect(terminal.text == before)
    }

    @Test func helpOverlayListsEveryKey() {
        let (session, terminal) = makeSession(height: 24)
        press(session, .char("?"))
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 4]  Shared 1   Public 2   T Today
             Keys
              k ↑                  move up
              j ↓                  move down
              Ctrl-U PgUp          page up
              Ctrl-D PgDn          page down
              g Home               first todo
              G End                last todo
              a                    add a todo (to the selected list)
              e Enter              edit the todo, rename the list
              Space                toggle done
              d                    delete, after asking (a list: with …
              u                    undo last action
              U                    redo what u undid
              n                    new list
              m                    move the todo to another list
              s                    share the list (people, access)
              i                    invitations to shared lists
              x                    leave a list shared with you
              /                    filter as you type
              f                    next saved filter, then none
              F                    save the filter under a name
            j/k scroll · any other key closes help
            """)
        for binding in Keymap.standard.bindings {
            let all = Keymap.standard.bindings.map(\.description) + Keymap.editorKeys.map(\.description)
            #expect(all.contains(binding.description))
        }
        press(session, .char("j"), .char("j"), .char("j"), .char("j"), .char("j"), .char("j"), .char("j"))
        press(session, .char("j"), .char("j"), .char("j"), .char("j"), .char("j"))
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 4]  Shared 1   Public 2   T Today
             Keys
              n                    new list
              m                    move the todo to another list
              s                    share the list (people, access)
              i                    invitations to shared lists
              x                    leave a list shared with you
              /                    filter as you type
              f                    next saved filter, then none
              F                    save the filter under a name
              X                    switch the context (saved filters)
              c                    show/hide completed
              T                    Today: overdue, today, 7 days
              N                    Next: most urgent first
              C                    Calendar: the month, due by day
              O                    cycle the sort order
              o                    details, notes log (a annotates)
              >                    skip this repeat occurrence
              p                    set priority (0-3)
              +                    add a tag
              -                    remove a tag
              v                    mark for a bulk action
            j/k scroll · any other key closes help
            """)
        press(session, .escape)
        #expect(session.state.mode == .list)
        press(session, .function(1))
        #expect(session.state.mode == .help)
        press(session, .char("?"))
        #expect(session.state.mode == .list)
    }

    @Test func keymapTableIsComplete() {
        for command in Command.allCases {
            #expect(Keymap.standard.binding(for: command) != nil, "no key for \(command)")
        }
        #expect(Keymap.standard.command(for: .char("j")) == .moveDown)
        #expect(Keymap.standard.command(for: .pageDown) == .pageDown)
        #expect(Keymap.standard.command(for: .enter) == .edit)
        #expect(Keymap.standard.command(for: .ctrl("c")) == .quit)
        let markdown = Keymap.markdownTable()
        #expect(markdown.contains("| `j` `↓` | move down |"))
        let sections = Keymap.standard.bulkKeys.count + Keymap.filterSyntax.count + Keymap.detailKeys.count + Keymap.editorKeys.count
        #expect(markdown.split(separator: "\n").count == 2 + Keymap.standard.bindings.count + sections)
        #expect(markdown.contains("| `T` | Today: overdue, today, 7 days |"))
        #expect(markdown.contains("| Space (marked todos) | complete them (reopen if all done) |"))
        // Every key is bound once: no new command shadows an older one.
        let keys = Keymap.standard.bindings.flatMap(\.keys)
        #expect(Set(keys).count == keys.count)
    }

    @Test func headerOfflineWithPending() {
        var status = Fixture.online
        status.connection = .offline
        status.pendingCount = 3
        status.lastSync = Fixture.now.addingTimeInterval(-300)
        let (_, terminal) = makeSession(status: status)
        #expect(terminal.lastScreen?.lines.first == "alice · laptop · offline · 3 pending · synced 5 min ago")
    }

    @Test func headerShowsFetchProgressAndErrors() {
        var status = Fixture.online
        status.connection = .connecting
        status.progress = FetchProgress(fetched: 3400, total: 10000)
        status.lastError = "THROTTLED: retrying in 3 s"
        let (_, terminal) = makeSession(status: status)
        #expect(terminal.lastScreen?.lines.first == "alice · laptop · connecting · fetching 3,400 of 10,000")
        #expect(terminal.lastScreen?.lines.last == "Sync error: THROTTLED: retrying in 3 s                   1/5")
    }

    @Test func headerIsTruncatedOnNarrowScreens() {
        let (_, terminal) = makeSession(width: 30, height: 8)
        #expect(terminal.lastScreen?.lines.first == "online · synced 2 s ago")
    }

    @Test func emptyTodosTab() {
        let (_, terminal) = makeSession(rows: [])
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 0]  Shared 0   Public 0   T Today

              No todos — press a to add one











            ? help · a add · / filter · q quit
            """)
    }

    @Test func emptySharedAndPublicTabs() {
        let (session, terminal) = makeSession(rows: [])
        press(session, .tab)
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
             Todos 0  [Shared 0]  Public 0   T Today

              Lists others share with you appear here.
              When someone shares a list with you, accept it with i.
              Share your own lists with s on the Todos tab.









            ? help · a add · / filter · q quit
            """)
        press(session, .tab)
        #expect(terminal.lastScreen?.lines[3] == "  The public board is empty — press a to post a todo.")
    }

    @Test func allCompletedAndHidden() {
        let (session, terminal) = makeSession(rows: [Fixture.own[3]])
        press(session, .char("c"))
        #expect(terminal.lastScreen?.lines[3] == "  All done. Press c to show completed todos.")
    }
}
