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

    /// The ids of the Next view's todos, shown and left again.
    func nextViewOrder(_ session: UISession) -> [String] {
        press(session, .char("N"))
        let ranked = session.state.agenda.compactMap { line -> String? in if case .todo(let row) = line { row.id } else { nil } }
        press(session, .char("N"))
        return ranked
    }

    @Test func blockedBlockingAndWaitingTodosRankTheTabAsTheNextView() {
        let terminal = TextTerminal(width: 80, height: 24)
        let ids = SequentialIDs()
        var state = AppState(status: Fixture.online, now: Fixture.now, calendar: Fixture.utc, makeID: { ids.make() }, sortOrder: .next)
        var rows = Fixture.planned
        // Review PR (a7, 9.54) waits on Read book (a6, 0.80): blocked, 4.54; blocking, 8.80. Old chore, done, waits
        // on Call plumber too: a done todo blocks nothing and makes nothing blocking.
        rows[6].depends = ["a6"]
        rows[7].depends = ["a3"]
        state.update(rows: rows, status: Fixture.online)
        let session = UISession(terminal: terminal, state: state, clock: { Fixture.now })
        session.redraw()
        let tab = session.state.visibleRows.map(\.id)
        #expect(tab == ["a5", "a1", "a4", "a2", "a6", "a3", "a7", "a8"], "\(session.state.visibleRows.map(\.title))")
        // The Next view ranks every scope (Plan the trip, s1, is shared): on this tab's todos it agrees.
        #expect(nextViewOrder(session).filter(tab.contains) == tab.filter { $0 != "a8" })

        // Read book done elsewhere: Review PR is blocked no more, and the tab ranks it so at once (9.54).
        rows[5].isCompleted = true
        session.apply(.changes(RowChanges(rows: [rows[5]]), status: Fixture.online))
        #expect(session.state.visibleRows.filter { !$0.isCompleted }.map(\.id) == ["a5", "a1", "a4", "a2", "a7", "a3"])
        #expect(nextViewOrder(session).filter { $0.hasPrefix("a") } == ["a5", "a1", "a4", "a2", "a7", "a3"])

        // Waiting todos, shown by is:waiting: the tab and the Next view score them alike (waiting and blocked).
        rows[1].wait = Fixture.now.addingTimeInterval(86_400)
        rows[2].wait = Fixture.now.addingTimeInterval(86_400)
        rows[2].depends = ["a1"]
        session.apply(.changes(RowChanges(rows: [rows[1], rows[2]]), status: Fixture.online))
        press(session, .char("/"))
        type(session, "is:waiting")
        press(session, .enter)
        let waiting = session.state.visibleRows.map(\.id)
        #expect(waiting == ["a2", "a3"], "\(session.state.visibleRows.map(\.title))")
        #expect(nextViewOrder(session) == waiting)
    }
}
