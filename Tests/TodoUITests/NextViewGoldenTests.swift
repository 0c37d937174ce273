import Foundation
import Terminal
import Testing
import TodoPlanning
import TodoUI

/// The Next view (`N`): every open todo, most urgent first, each with its urgency, as `todo next` ranks them.
@MainActor
@Suite("Next view")
struct NextViewGoldenTests {
    @Test func nextViewRanksByUrgencyAt80x24() {
        let (session, terminal) = makePlanningSession(width: 80, height: 24)
        press(session, .char("N"))
        // Pay rent: due today (9.03: half a day past the start of its day), medium (3.9), one tag (0.8).
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 7]  Shared 1   Public 0  [Next 8]
             Most urgent first (8)
            >[ ] File taxes                                        !!! 2026-03-01     18.00
             [ ] Pay rent +home                                     !! 2026-03-10     13.73
             [ ] Water plants ↻ +garden                                2026-03-11     10.17
             [ ] Standup notes +work                                  today 09:30      9.65
             [ ] Review PR +work                                      today 15:00      9.54
             [ ] Call plumber +home +phone                              Fri 17:00      8.23
             [ ] Plan the trip                                         2026-03-12  RO  8.11
             [ ] Read book +someday                                                    0.80












            Next: open todos, most urgent first (N goes back)                            1/8
            """)
        // Without colours the selected row still stands out: reversed, its urgency too.
        #expect(terminal.lastScreen![3, 78].style.reverse && terminal.lastScreen![3, 1].style.reverse)
        #expect(terminal.lastScreen![4, 78].style.color == .muted && !terminal.lastScreen![4, 78].style.reverse)
        // Space completes from here; the next most urgent is selected.
        #expect(press(session, .char(" ")) == [.setCompleted(id: "a5", true)])
        #expect(session.state.selectedRow?.id == "a1")
        // T goes to Today, N back to Next, N again to the tabs.
        press(session, .char("T"))
        #expect(session.state.showsToday && session.state.agendaKind == .today)
        press(session, .char("N"), .char("N"))
        #expect(!session.state.showsToday && session.state.agendaKind == .today && session.state.agendaScores.isEmpty)
    }

    @Test func theFilterAndTheConfiguredCoefficientsApply() {
        let terminal = TextTerminal(width: 80, height: 24)
        let ids = SequentialIDs()
        var state = AppState(status: Fixture.online, now: Fixture.now, calendar: Fixture.utc, makeID: { ids.make() })
        state.urgencyCoefficients = (try? UrgencyCoefficients(overrides: ["tags": 20])) ?? UrgencyCoefficients()
        state.update(rows: Fixture.planned, status: Fixture.online)
        let session = UISession(terminal: terminal, state: state, clock: { Fixture.now })
        session.redraw()
        press(session, .char("/"))
        type(session, "+work")
        press(session, .enter, .char("N"))
        #expect(session.state.agendaTodoCount == 2)
        // One tag at 20 × 0.8 puts both work todos at 16 instead of 0.8, beside their due term (9.65 for the standup).
        #expect(terminal.text.contains("today 09:30     24.85"), "\(terminal.text)")
        press(session, .char("/"))
        type(session, "nothing-matches")
        press(session, .enter)
        #expect(terminal.text.contains("Nothing open matches the filter."), "\(terminal.text)")
    }
}
