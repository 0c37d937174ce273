import Foundation
import Terminal
import Testing
import TodoPlanning
import TodoUI

/// The calendar view (`C`): the month of `Fixture.now` (Tue 2026-03-10), days with open todos due counted, today in
/// reverse video, the selected day's todos below.
@MainActor
@Suite("Calendar view")
struct CalendarViewGoldenTests {
    @Test func theMonthAt80x24() {
        let (session, terminal) = makePlanningSession(width: 80, height: 24)
        press(session, .char("C"))
        // File taxes (the 1st) is overdue; today has three todos; the done Old chore (the 9th) is not counted.
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 7]  Shared 1   Public 0   T Today
                                               March 2026
                  Mon       Tue       Wed       Thu       Fri       Sat       Sun
                                                                               1 •1
                   2         3         4         5         6         7         8
                   9       [10]•3     11 •1     12 •1     13 •1     14        15
                  16        17        18        19        20        21        22
                  23        24        25        26        27        28        29
                  30        31

             Tue 10 March 2026: 3 todos due
             [ ] Pay rent
             [ ] Standup notes  09:30
             [ ] Review PR  15:00








            Calendar: arrows move a day or a week, < > a month, t today, Esc closes
            """)
        // Today in reverse video (kept under NO_COLOR), the overdue 1st in the overdue colour.
        let screen = terminal.lastScreen!
        #expect(screen[6, 16].style.reverse && screen[6, 17].style.reverse && screen[6, 15].character == "[")
        #expect(screen[4, 67].style.color == .overdue && screen[4, 69].style.color == .overdue && !screen[4, 67].style.reverse)
    }

    @Test func movingThroughDaysAndMonths() {
        let (session, terminal) = makePlanningSession(width: 80, height: 24)
        press(session, .char("C"), .right, .right, .right)
        #expect(terminal.text.contains("Fri 13 March 2026: 1 todo due"), "\(terminal.text)")
        #expect(terminal.text.contains("[ ] Call plumber  17:00"))
        press(session, .down, .down, .down)  // three weeks on: April 3rd
        #expect(terminal.text.contains("April 2026") && terminal.text.contains("Fri 3 April 2026: nothing due"), "\(terminal.text)")
        press(session, .char("<"), .char("<"))
        #expect(terminal.text.contains("February 2026") && terminal.text.contains("Tue 3 February 2026"), "\(terminal.text)")
        press(session, .char("t"))
        #expect(terminal.text.contains("Tue 10 March 2026: 3 todos due"))
        // Keys of the tabs do nothing here; Esc goes back to them, C opens and closes it.
        #expect(press(session, .char(" ")) == [])
        press(session, .escape)
        #expect(session.state.mode == .list)
        press(session, .char("C"), .char("C"))
        #expect(session.state.mode == .list)
    }

    @Test func sundayFirstAndTheFilterApply() {
        let terminal = TextTerminal(width: 80, height: 24)
        let ids = SequentialIDs()
        var state = AppState(status: Fixture.online, now: Fixture.now, calendar: Fixture.utc, makeID: { ids.make() })
        state.sundayFirst = true
        state.update(rows: Fixture.planned, status: Fixture.online)
        let session = UISession(terminal: terminal, state: state, clock: { Fixture.now })
        session.redraw()
        press(session, .char("/"))
        type(session, "+work")
        press(session, .enter, .char("C"))
        #expect(terminal.text.contains("      Sun       Mon       Tue"), "\(terminal.text)")
        #expect(terminal.text.contains("Tue 10 March 2026: 2 todos due"), "\(terminal.text)")
        #expect(!terminal.text.contains("Pay rent"))
    }
}
