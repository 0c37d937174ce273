import Foundation
import Terminal
import Testing
import TodoPlanning
import TodoUI

/// `next` as a sort of the tabs (`O` cycles to it, `[view] sort = "next"` saves it): the Next view's ranking, kept
/// while todos are added and changed.
@MainActor
@Suite("The next sort")
struct NextSortTests {
    @Test func theTabsRankByUrgencyAsTheNextViewDoes() {
        let (session, terminal) = makePlanningSession(width: 80, height: 24)
        press(session, .char("O"), .char("O"))
        #expect(press(session, .char("O")) == [.setSortOrder(.next)])
        #expect(session.state.sortOrder == .next)
        // File taxes 18.00, Pay rent 13.73, Water plants 10.17, Standup 9.65, Review PR 9.54, Call plumber 8.23,
        // Read book 0.80 (Fixture.now), the done one last.
        #expect(session.state.visibleRows.map(\.id) == ["a5", "a1", "a4", "a2", "a7", "a3", "a6", "a8"])
        #expect(terminal.text.contains("by urgency"), "\(terminal.text)")
        #expect(session.state.message?.text == "Sorted by urgency")
        // A todo added without a due date, priority or tag (urgency 0) takes its place by urgency, not by title:
        // after Read book (0.80), before the done one.
        press(session, .char("a"))
        type(session, "Ask Ann")
        press(session, .enter)
        let titles = session.state.visibleRows.map(\.title)
        #expect(titles.suffix(3) == ["Read book", "Ask Ann", "Old chore"], "\(titles)")
        // The Next view and the sort agree on the open todos of the tab.
        press(session, .char("N"))
        let ranked = session.state.agenda.compactMap { line -> String? in if case .todo(let row) = line { row.id } else { nil } }
        press(session, .char("N"))
        let tab = session.state.visibleRows.filter { !$0.isCompleted }.map(\.id)
        #expect(ranked.filter { id in tab.contains(id) } == tab)
    }

    @Test func theConfiguredCoefficientsRankTheSortToo() {
        let terminal = TextTerminal(width: 80, height: 24)
        let ids = SequentialIDs()
        var state = AppState(status: Fixture.online, now: Fixture.now, calendar: Fixture.utc, makeID: { ids.make() }, sortOrder: .next)
        // Tags at 20 (× 0.8 for one, 0.9 for two) put File taxes, untagged, below the tagged todos but Read book.
        state.urgencyCoefficients = (try? UrgencyCoefficients(overrides: ["tags": 20])) ?? UrgencyCoefficients()
        state.update(rows: Fixture.planned, status: Fixture.online)
        let session = UISession(terminal: terminal, state: state, clock: { Fixture.now })
        session.redraw()
        #expect(session.state.visibleRows.map(\.id) == ["a1", "a4", "a3", "a2", "a7", "a5", "a6", "a8"], "\(session.state.visibleRows.map(\.title))")
    }
}
