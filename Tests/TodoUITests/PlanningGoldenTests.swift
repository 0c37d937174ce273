import Foundation
import Terminal
import Testing
import TodoPlanning
import TodoUI

@Suite("Planning: tags, times, Today view, details, sort, filters")
@MainActor
struct PlanningGoldenTests {
    @Test func rowsShowTagsTimesAndRepeats() {
        let (_, terminal) = makePlanningSession()
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 7]  Shared 1   Public 0   T Today
            >[ ] File taxes                           !!! 2026-03-01
             [ ] Pay rent +home                        !! 2026-03-10
             [ ] Standup notes +work                     today 09:30
             [ ] Review PR +work                         today 15:00
             [ ] Water plants ↻ +garden                   2026-03-11
             [ ] Call plumber +home +phone                 Fri 17:00
             [ ] Read book +someday
             [x] Old chore                                2026-03-09





            ? help · a add · / filter · q quit                       1/8
            """)
    }

    @Test func overdueAndTodayAreHighlightedByAttributesToo() {
        let (_, terminal) = makePlanningSession()
        let screen = terminal.lastScreen!
        func row(_ title: String) -> Int { screen.lines.firstIndex { $0.contains(title) }! }
        func dueStyle(_ title: String) -> Style {
            var style = screen[row(title), 55].style
            style.reverse = false  // the selected row is reversed besides
            return style
        }
        // Overdue: its own role (red by default) and bold (without colours the terminal draws it bold and underlined).
        #expect(dueStyle("File taxes") == Style(bold: true, color: .overdue))
        #expect(dueStyle("Standup notes") == Style(bold: true, color: .overdue))
        // Today: its own role (cyan by default) and bold (bold alone without colours); the title is bold too.
        #expect(dueStyle("Pay rent") == Style(bold: true, color: .today))
        #expect(dueStyle("Review PR") == Style(bold: true, color: .today))
        #expect(screen[row("Pay rent"), 5].style.bold)
        // Later and done: plain, and dim.
        #expect(dueStyle("Call plumber") == .plain)
        #expect(dueStyle("Old chore").dim)
        #expect(!dueStyle("Old chore").bold)
        // Tags are dim, in their own role (blue by default, as muted text).
        let line = screen.lines[row("Call plumber")]
        let tagColumn = line.distance(from: line.startIndex, to: line.range(of: "+home")!.lowerBound)
        #expect(screen[row("Call plumber"), tagColumn].style == Style(dim: true, color: .tag))
    }

    @Test func todayViewGroupsEveryScopeByDay() {
        let (session, terminal) = makePlanningSession()
        press(session, .char("T"))
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 7]  Shared 1   Public 0  [Today 7]
             Overdue (2)
            >[ ] File taxes                           !!! 2026-03-01
             [ ] Standup notes +work                     today 09:30
             Today · Tue 2026-03-10 (2)
             [ ] Pay rent +home                        !! 2026-03-10
             [ ] Review PR +work                         today 15:00
             Tomorrow · Wed 2026-03-11 (1)
             [ ] Water plants ↻ +garden                   2026-03-11
             Thu 2026-03-12 (1)
             [ ] Plan the trip                            2026-03-12  RO
             Fri 2026-03-13 (1)
             [ ] Call plumber +home +phone                 Fri 17:00

            Today: overdue, today and the next 7 days (T goes back)  1/7
            """)
        press(session, .char("j"), .char("j"))
        #expect(session.state.selectedRow?.id == "a1")
        // Space completes the selected todo from here; it leaves the view and the next one is selected.
        #expect(press(session, .char(" ")) == [.setCompleted(id: "a1", true)])
        #expect(session.state.selectedRow?.id == "a7")
        press(session, .char("T"))
        #expect(!session.state.showsToday)
    }

    @Test func notesAreEditedInTheEditorFromTheDetailView() {
        let (session, _) = makePlanningSession(height: 24)
        while session.state.selectedRow?.id != "a4" { press(session, .char("j")) }
        press(session, .char("o"))
        let notes = session.state.selectedRow?.notes ?? ""
        #expect(press(session, .char("n")) == [.editNotes(id: "a4", notes: notes)])
        #expect(session.state.message == nil || session.state.message?.kind != .error)
        #expect(press(session, .escape) == [], "the detail view stays open until closed")
    }

    @Test func detailViewShowsEverythingAndAnnotates() {
        let (session, terminal) = makePlanningSession(height: 24)
        press(session, .char("G"))  // the completed one is last; Water plants is before it
        while session.state.selectedRow?.id != "a4" { press(session, .char("k")) }
        press(session, .char("o"))
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 7]  Shared 1   Public 0   T Today
             Water plants

                  List none · Todos
                   Due Wed 2026-03-11 (all day)
                Repeat weekly
                  Tags +garden
              Priority none
                Status open

             Notes
                       Balcony first.
                       Then the kitchen herbs, which need much less
                       water.

             Notes log
                       2026-03-03 08:00
                         Fern looks dry




            a annotate · e edit · j/k scroll · Esc close
            """)
        press(session, .char("a"))
        type(session, "Repotted the basil")
        #expect(press(session, .enter) == [.annotate(id: "a4", text: "Repotted the basil")])
        guard case .detail = session.state.mode else {
            Issue.record("the detail view should come back")
            return
        }
        #expect(terminal.text.contains("Repotted the basil"))
        press(session, .escape)
        #expect(session.state.mode == .list)
    }

    @Test func filterWithTagsAndDates() {
        let (session, terminal) = makePlanningSession()
        press(session, .char("/"))
        type(session, "+home due.before:eow")
        press(session, .enter)
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 7]  Shared 1   Public 0   T Today  filter: +home due…
            >[ ] Pay rent +home                        !! 2026-03-10
             [ ] Call plumber +home +phone                 Fri 17:00











            Filter '+home due.before:eow': 2 shown (/ then Esc clea… 1/2
            """)
        #expect(session.state.visibleRows.map(\.id) == ["a1", "a3"])
        // A filter that does not read says why, and the one before it stays in effect.
        press(session, .char("/"))
        type(session, " pri:9")
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 7]  Shared 1   Public 0   T Today

              Nothing matches '+home due.before:eow pri'.
              Esc clears the filter.










            /+home due.before:eow pri:9     'pri:9' is not accepted; pr…
            """)
        #expect(session.state.filterError != nil)
        press(session, .enter)
        #expect(session.state.visibleRows.map(\.id) == ["a1", "a3"])
        #expect(session.state.message?.kind == .error)
        #expect(session.state.appliedFilterText == "+home due.before:eow")
    }

    @Test func sortOrderCyclesAndIsRemembered() {
        let (session, terminal) = makePlanningSession()
        #expect(press(session, .char("O")) == [.setSortOrder(.created)])
        #expect(press(session, .char("O")) == [.setSortOrder(.title)])
        #expect(press(session, .char("O")) == [.setSortOrder(.next)])
        #expect(press(session, .char("O")) == [.setSortOrder(.due)])
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 7]  Shared 1   Public 0   T Today              by due
            >[ ] File taxes                           !!! 2026-03-01
             [ ] Pay rent +home                        !! 2026-03-10
             [ ] Standup notes +work                     today 09:30
             [ ] Review PR +work                         today 15:00
             [ ] Water plants ↻ +garden                   2026-03-11
             [ ] Call plumber +home +phone                 Fri 17:00
             [ ] Read book +someday
             [x] Old chore                                2026-03-09





            Sorted by due                                            1/8
            """)
        #expect(session.state.sortOrder == .due)
    }

    @Test func sortOrderFromTheConfigFile() {
        let (session, _) = makePlanningSession(sortOrder: .title)
        #expect(session.state.visibleRows.map(\.title).prefix(3) == ["Call plumber", "File taxes", "Pay rent"])
    }
}
