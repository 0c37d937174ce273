import Foundation
import Terminal
import TestSupport
import Testing
import TodoPlanning
import TodoUI

@Suite("Rendering: wide characters, truncation, inert text, resize, updates, scale", .onThreadOfItsOwn)
@MainActor
struct RenderingTests {
    static let wide: [TodoRow] = [
        TodoRow(id: "w1", title: "买牛奶和面包", due: Fixture.due(2026, 3, 12)),
        TodoRow(id: "w2", title: "🥛 milk 🍞 bread", due: Fixture.due(2026, 3, 13)),
        TodoRow(id: "w3", title: "给妈妈打电话然后去超市买很多很多很多东西回家做饭吃", due: Fixture.due(2026, 3, 14)),
        TodoRow(id: "w4", title: "plain ascii", due: Fixture.due(2026, 3, 15)),
        TodoRow(id: "w5", title: "A very long title that certainly does not fit into the column", due: Fixture.due(2026, 3, 16)),
    ]

    @Test func wideCharactersKeepTheDueColumnAligned() {
        let (_, terminal) = makeSession(rows: Self.wide)
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 5]  Shared 0   Public 0   T Today
            >[ ] 买牛奶和面包                             2026-03-12
             [ ] 🥛 milk 🍞 bread                         2026-03-13
             [ ] 给妈妈打电话然后去超市买很多很多很…      2026-03-14
             [ ] plain ascii                              2026-03-15
             [ ] A very long title that certainly do…     2026-03-16








            ? help · a add · / filter · q quit                       1/5
            """)
        // The due date starts in the same cell on every row.
        let screen = terminal.lastScreen!
        for row in 2...6 {
            #expect(screen[row, 46].character == "2", "row \(row)")
            #expect(screen[row, 45].character == " ", "row \(row)")
        }
    }

    @Test func escapeSequencesAndControlCharactersAreInert() {
        let evil = TodoRow(
            id: "e1", title: "pwn\u{1B}[2J\u{1B}]0;title\u{07}\u{9B}31m\nnext\tline\u{202E}txt", notes: "\u{1B}[31m")
        let (session, terminal) = makeSession(rows: [evil])
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 1]  Shared 0   Public 0   T Today
            >[ ] pwn␛[2J␛]0;title␇�31m next line�txt












            ? help · a add · / filter · q quit                       1/1
            """)
        for cell in terminal.lastScreen!.cells {
            for scalar in cell.character.unicodeScalars {
                #expect(scalar.value >= 0x20 && !(0x7F...0x9F).contains(scalar.value))
            }
        }
        press(session, .char("d"))
        #expect(terminal.lastScreen?.lines.last?.contains("\u{1B}") == false)
    }

    @Test func resizeReflows() {
        let (session, terminal) = makeSession()
        terminal.resize(to: TerminalSize(width: 40, height: 8))
        press(session, terminal.readKey(timeout: .zero)!)
        expectScreen(terminal, """
            alice · laptop · online · synced 2 s ago
            [Todos 4]  Shared 1   Public 2   T Today
            >[ ] File taxes       !!! 2026-03-01
             [ ] Buy milk          !!
             [ ] Book dentist       ! 2026-03-20
             [ ] Call mom
             [x] Water plants         2026-03-09
            ? help · a add · / filter · q quit   1/5
            """)
        terminal.resize(to: TerminalSize(width: 32, height: 6))
        press(session, terminal.readKey(timeout: .zero)!)
        press(session, .char("G"))
        expectScreen(terminal, """
            alice · online · synced 2 s ago
            [Todos 4]  Shared 1   Public 2
             [ ] Book dentist          !
             [ ] Call mom
            >[x] Water plants
            ? help · a add · / filter ·… 5/5
            """)
        #expect(session.state.scroll == 2)
    }

    @Test func updateKeepsSelectionOnTheSameRecord() {
        let (session, _) = makeSession()
        press(session, .char("j"), .char("j"))
        #expect(session.state.selectedRow?.id == "t5")
        var rows = Fixture.all
        rows.append(TodoRow(id: "t9", title: "Urgent thing", priority: 3))
        rows.removeAll { $0.id == "t1" }
        session.apply(.data(rows: rows, status: Fixture.online))
        #expect(session.state.selectedRow?.id == "t5")
        #expect(session.state.visibleRows.map(\.id) == ["t2", "t9", "t5", "t3", "t4"])
        // The selected record disappears: the selection stays at the same position.
        rows.removeAll { $0.id == "t5" }
        session.apply(.data(rows: rows, status: Fixture.online))
        #expect(session.state.selectedRow?.id == "t3")
    }

    @Test func updateKeepsFilterAndScroll() {
        let rows = (1...40).map { TodoRow(id: String(format: "r%02d", $0), title: String(format: "Task %02d", $0)) }
        let (session, _) = makeSession(rows: rows)
        press(session, .ctrl("d"), .char("j"))
        #expect(session.state.scroll == 13)
        #expect(session.state.selection == 14)
        let more = [TodoRow(id: "a0", title: "Aardvark")] + rows
        session.apply(.data(rows: more, status: Fixture.online))
        #expect(session.state.selectedRow?.id == "r15")
        #expect(session.state.selection - session.state.scroll == 1)
        press(session, .char("/"))
        type(session, "task 1")
        press(session, .enter)
        session.apply(.data(rows: more + [TodoRow(id: "r99", title: "Task 1x")], status: Fixture.online))
        #expect(session.state.filter.text == "task 1")
        // Two words, both in the title: 01, 10-19, 21, 31 and 1x.
        #expect(session.state.visibleCount == 14)
    }

    @Test func sortingOrder() {
        let rows = [
            TodoRow(id: "a", title: "b", isCompleted: true, priority: 3),
            TodoRow(id: "b", title: "B", priority: 1),
            TodoRow(id: "c", title: "a", priority: 1),
            TodoRow(id: "d", title: "z", due: Fixture.due(2026, 1, 1), priority: 1),
            TodoRow(id: "e", title: "y", priority: 2),
            TodoRow(id: "f", title: "a", priority: 1),
        ]
        #expect(sortedForDisplay(rows).map(\.id) == ["e", "d", "c", "f", "b", "a"])
    }

    @Test func hundredThousandRows() {
        let rows: [TodoRow] = (0..<100_000).map { (i: Int) -> TodoRow in
            let due: DueDate? = i % 3 == 0 ? DueDate(Fixture.now.addingTimeInterval(Double(i) * 60), allDay: false) : nil
            return TodoRow(id: "r\(i)", title: "Todo number \(i)", isCompleted: i % 7 == 0, due: due, priority: i % 4)
        }
        let (session, terminal) = makeSession(rows: rows)
        #expect(session.state.visibleCount == 100_000)
        press(session, .char("G"))
        #expect(session.state.selection == 99_999)
        #expect(terminal.lastScreen?.lines.last?.hasSuffix("100,000/100,000") == true)
        press(session, .char("g"), .char("j"), .pageDown, .char(" "))
        press(session, .char("c"))
        #expect(session.state.visibleCount < 100_000)
        press(session, .char("/"))
        type(session, "99999")
        #expect(session.state.visibleRows.map(\.id) == ["r99999"])
        press(session, .escape)
        session.apply(.data(rows: rows, status: Fixture.online))
        let completed = (100_000 + 6) / 7
        #expect(session.state.openCount(in: .todos) == 100_000 - completed)
    }
}

@Suite("Run loop")
@MainActor
struct RunLoopTests {
    @Test func runHandlesKeysAndUpdatesUntilQuit() async {
        let terminal = TextTerminal(width: 60, height: 16, keys: [.char("j"), .char(" "), .char("q")])
        let state = AppState(status: Fixture.signedOut, now: Fixture.now, calendar: Fixture.utc, makeID: { "x" })
        let session = UISession(terminal: terminal, state: state, clock: { Fixture.now })
        let inbox = UpdateInbox()
        inbox.post(.data(rows: [], status: Fixture.signedOut))
        inbox.post(.data(rows: Fixture.all, status: Fixture.online))  // replaces the first
        inbox.post(.message(StatusMessage("hello")))
        var performed: [Effect] = []
        await session.run(inbox: inbox, poll: .zero) { performed.append($0) }
        #expect(performed == [.setCompleted(id: "t1", true), .quit])
        #expect(terminal.frameCount >= 2)
        #expect(session.state.status == Fixture.online)
    }

    @Test func runAcceptsAnAsyncStream() async {
        let terminal = TextTerminal(width: 60, height: 16)
        let state = AppState(status: Fixture.online, now: Fixture.now, calendar: Fixture.utc)
        let session = UISession(terminal: terminal, state: state, clock: { Fixture.now })
        let (stream, continuation) = AsyncStream<UIUpdate>.makeStream()
        continuation.yield(.data(rows: Fixture.all, status: Fixture.online))
        let quitter = Task { @MainActor in
            _ = await eventually { session.state.visibleCount > 0 }
            terminal.pendingKeys.append(.char("q"))
        }
        var performed: [Effect] = []
        await session.run(updates: stream, poll: .milliseconds(1)) { performed.append($0) }
        await quitter.value
        #expect(performed == [.quit])
        #expect(terminal.text.contains("File taxes"))
    }
}
