import Foundation
@testable import Terminal
import Testing
import TodoUI

/// Emoji sequences and mark floods as another account could title its todos: every row keeps the screen's width and
/// the due date and `RO` marker their columns, in the list, the detail view, the edit form and the Next view. A lone
/// regional indicator (half a flag) shows as U+FFFD; a mark flood keeps four marks a cell.
@Suite("Widths as drawn: golden screens")
@MainActor
struct DrawnWidthGoldenTests {
    /// A flood of 40 combining marks on one letter: a cell draws four of them.
    static let flood = "Z" + String(repeating: "\u{0336}\u{0489}", count: 20) + "algo"

    static let titles: [String] = [
        "Family 👩‍👩‍👧‍👦 four",
        "Rainbow 🏳️‍🌈 flag",
        "Flags 🇩🇪🇫🇷 pair",
        "Lone 🇩 indicator",
        "Scotland 🏴󠁧󠁢󠁳󠁣󠁴󠁿 tags",
        "Heart ❤️ keycap 1️⃣ text ☺︎",
        flood,
        "Mixed 👩🏽‍💻🇯🇵e\u{301}\u{302}\u{303}\u{304}\u{305}\u{306}한국 end",
    ]

    /// One row per title, each due on its own day; every other one read-only (`RO`).
    static var rows: [TodoRow] {
        titles.enumerated().map { index, title in
            let due = Fixture.due(2026, 3, 11 + index)
            if index % 2 == 1 {
                return TodoRow(
                    id: "w\(index)", title: title, due: due, priority: index % 4, canUpdate: false, canDelete: false,
                    trashBehaviour: .refuse(reason: "bob shared this list read-only."), lockReason: "bob shared this list read-only.")
            }
            return TodoRow(id: "w\(index)", title: title, due: due, priority: index % 4)
        }
    }

    @Test func theListKeepsEveryColumnAt80x24() {
        let (_, terminal) = makeSession(rows: Self.rows, width: 80, height: 24)
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 8]  Shared 0   Public 0   T Today
            >[ ] Lone � indicator                                         !!! 2026-03-14  RO
             [ ] Mixed 👩🏽‍💻🇯🇵é̂̃̄한국 end                                      !!! 2026-03-18  RO
             [ ] Flags 🇩🇪🇫🇷 pair                                           !! 2026-03-13
             [ ] Z̶҉̶҉algo                                                     !! 2026-03-17
             [ ] Rainbow 🏳️‍🌈 flag                                            ! 2026-03-12  RO
             [ ] Heart ❤️ keycap 1️⃣ text ☺︎                                  ! 2026-03-16  RO
             [ ] Family 👩‍👩‍👧‍👦 four                                               2026-03-11
             [ ] Scotland 🏴󠁧󠁢󠁳󠁣󠁴󠁿 tags                                             2026-03-15













            Bob shared this list read-only.                                              1/8
            """)
        Self.expectColumnsKept(terminal)
    }

    @Test func theDetailViewTheFormAndTheNextViewKeepTheirColumns() {
        let (session, terminal) = makeSession(rows: Self.rows, width: 80, height: 24)
        press(session, .char("o"))
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 8]  Shared 0   Public 0   T Today
             Lone � indicator

                  List none · Todos
                   Due Sat 2026-03-14 (all day)
                  Tags none
              Priority !!! (3)
                Status open · read-only

             Notes
                       none

             Notes log
                       none (a adds one)








            a annotate · e edit · j/k scroll · Esc close
            """)
        Self.expectFullRows(terminal)
        // The family's row (editable) in the form: the cursor sits after the title as drawn.
        press(session, .escape, .char("j"), .char("j"), .char("j"), .char("j"), .char("j"), .char("j"), .char("e"))
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 8]  Shared 0   Public 0   T Today
             Edit todo

            >    Title Family 👩‍👩‍👧‍👦 four
                 Notes
                   Due 2026-03-11
              Priority
                  Tags
                Repeat
                  Wait
             Scheduled
                 Until
               Depends
               Project

             Due: fri 17:00, +3d, eow · Repeat: weekly · Priority 0–3






            Enter save · Esc cancel · Tab/↑↓ field
            """)
        Self.expectFullRows(terminal)
        if let screen = terminal.lastScreen, let cursor = screen.cursor {
            #expect(displayWidth(screen.line(cursor.row)) == cursor.col, "the cursor follows the title as drawn")
        } else {
            Issue.record("the form shows no cursor")
        }
        press(session, .escape, .char("N"))
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 8]  Shared 0   Public 0  [Next 8]
             Most urgent first (8)
            >[ ] Lone � indicator                                  !!! 2026-03-14  RO 13.20
             [ ] Flags 🇩🇪🇫🇷 pair                                    !! 2026-03-13     11.56
             [ ] Mixed 👩🏽‍💻🇯🇵é̂̃̄한국 end                               !!! 2026-03-18  RO 11.37
             [ ] Rainbow 🏳️‍🌈 flag                                     ! 2026-03-12  RO  9.91
             [ ] Z̶҉̶҉algo                                              !! 2026-03-17      9.73
             [ ] Family 👩‍👩‍👧‍👦 four                                        2026-03-11      8.57
             [ ] Heart ❤️ keycap 1️⃣ text ☺︎                           ! 2026-03-16  RO  8.09
             [ ] Scotland 🏴󠁧󠁢󠁳󠁣󠁴󠁿 tags                                      2026-03-15      6.74












            Next: open todos, most urgent first (N goes back)                            1/8
            """)
        Self.expectFullRows(terminal)
    }

    /// Every row of the last frame takes exactly the screen's width in cells (wide ones counted twice).
    static func expectFullRows(_ terminal: TextTerminal, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let screen = terminal.lastScreen else {
            Issue.record("nothing drawn", sourceLocation: sourceLocation)
            return
        }
        #expect(screen.invariantViolations.isEmpty, "\(screen.invariantViolations.prefix(3))", sourceLocation: sourceLocation)
        for row in 0..<screen.height {
            let columns = (0..<screen.width).reduce(0) { $0 + (screen[row, $1].isContinuation ? 0 : screen[row, $1].width) }
            #expect(columns == screen.width, "row \(row) takes \(columns) columns: \(screen.line(row))", sourceLocation: sourceLocation)
            #expect(displayWidth(screen.line(row)) <= screen.width, sourceLocation: sourceLocation)
        }
    }

    /// The x of the first cell of `text` on `row`, counting cells as the terminal does.
    static func column(of text: String, row: Int, in screen: Screen) -> Int? {
        let first = Character(String(text.prefix(1)))
        for col in 0..<screen.width where screen[row, col].character == first {
            let cells = (0..<text.count).map { col + $0 }
            if cells.allSatisfy({ $0 < screen.width }), zip(cells, text).allSatisfy({ screen[row, $0.0].character == $0.1 }) { return col }
        }
        return nil
    }

    /// Full rows, and on each todo row the due date and the `RO` marker at the same x.
    static func expectColumnsKept(_ terminal: TextTerminal, sourceLocation: SourceLocation = #_sourceLocation) {
        expectFullRows(terminal, sourceLocation: sourceLocation)
        guard let screen = terminal.lastScreen else { return }
        var dueColumns: Set<Int> = []
        var lockColumns: Set<Int> = []
        for row in 0..<screen.height where screen.line(row).contains("2026-03-") {
            let line = screen.line(row)
            if let range = line.range(of: #"2026-03-\d\d"#, options: .regularExpression) {
                let word = String(line[range])
                if let x = column(of: word, row: row, in: screen) { dueColumns.insert(x + displayWidth(word)) }
            }
            if line.contains(" RO"), let x = column(of: " RO", row: row, in: screen) { lockColumns.insert(x) }
        }
        #expect(dueColumns.count == 1, "the due dates end at x \(dueColumns.sorted())", sourceLocation: sourceLocation)
        #expect(lockColumns.count == 1, "the RO markers sit at x \(lockColumns.sorted())", sourceLocation: sourceLocation)
    }

    /// What the terminal is handed for a cell: an emoji whose first scalar the C library counts as one column goes in
    /// text presentation (one column everywhere, the cell's blank second column after it); the rest as the grid has it.
    @Test func emojiOnATextBaseIsHandedOverInTextPresentation() {
        guard TextLocale.useUTF8() else { return }
        func handed(_ text: String) -> [UInt32] {
            var scalars = text.unicodeScalars.map { wchar_t(bitPattern: $0.value) }
            NcursesTerminal.narrowToFirstScalarWidth(&scalars, width: displayWidth(of: Character(text)))
            return scalars.map { UInt32(bitPattern: $0) }
        }
        #expect(displayWidth(of: Character("1\u{FE0F}\u{20E3}")) == 2, "a keycap is an emoji of two columns")
        #expect(handed("\u{2764}\u{FE0F}") == [0x2764])
        #expect(handed("🏳️‍🌈") == [0x1F3F3])
        #expect(handed("1\u{FE0F}\u{20E3}") == [0x31, 0x20E3])
        #expect(handed("👩‍👩‍👧‍👦") == "👩‍👩‍👧‍👦".unicodeScalars.map(\.value), "a family keeps its scalars")
        #expect(handed("🏴󠁧󠁢󠁳󠁣󠁴󠁿") == "🏴󠁧󠁢󠁳󠁣󠁴󠁿".unicodeScalars.map(\.value))
        #expect(handed("e\u{301}") == [0x65, 0x301])
    }
}
