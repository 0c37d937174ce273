import CloudModel
import Foundation
import Testing
import TodoApp
import TodoStore

/// The reports' text as printed: plain (NO_COLOR, a pipe) and with colour, at 80 columns.
@Suite("Report text")
struct ReportTextTests {
    @Test func summaryPlainAndInColour() {
        let summary = ProjectSummary([
            (path: "Home", isCompleted: false), (path: "Home.Garden", isCompleted: true), (path: "Home . Garden", isCompleted: false),
            (path: nil, isCompleted: false), (path: "work", isCompleted: true),
        ], everyProject: true)
        #expect(summary.lines.map(\.name) == ["Home", "Garden", "work", "(none)"])
        #expect(summary.lines.map(\.percentDone) == [33, 50, 100, 0])
        #expect(summary.text(width: 80) == [
            "Project   Open  Done Done%  0%              100%",
            "Home         2     1   33%  ######..............",
            "  Garden     1     1   50%  ##########..........",
            "work         0     1  100%  ####################",
            "(none)       1     0    0%  ....................",
            "",
            "3 projects, 3 open, 2 done",
        ])
        let coloured = summary.text(width: 80, ink: ReportInk(colour: true))
        #expect(coloured[0] == "\u{1B}[1m" + "Project   Open  Done Done%  0%              100%" + "\u{1B}[0m")
        #expect(coloured[1].hasSuffix("\u{1B}[32m██████\u{1B}[0m\u{1B}[2m░░░░░░░░░░░░░░\u{1B}[0m"), "\(coloured[1])")
        // Narrow: the bar goes before the numbers do.
        #expect(summary.text(width: 30)[1] == "Home         2     1   33%")
        #expect(ProjectSummary([]).text() == ["No todos: nothing to summarise."])
    }

    @Test func projectsLeaveOutWhatHasNothingOpenAndRollChildrenUp() {
        let summary = ProjectSummary([
            (path: "Home.Garden", isCompleted: false), (path: "Home.Garden", isCompleted: false), (path: "Home", isCompleted: true),
            (path: "Work.Old", isCompleted: true), (path: nil, isCompleted: false),
        ])
        #expect(summary.lines.map(\.name) == ["Home", "Garden", "(none)"])
        #expect(summary.finishedLeftOut == 2)
        #expect(summary.projectsText() == ["Project   Open", "Home         2", "  Garden     2", "(none)       1", "", "2 projects, 3 open"])
        #expect(ProjectSummary([(path: "Work", isCompleted: true)]).text() == ["No open todos: every project is done (todo summary --all shows them)."])
        #expect(ProjectSummary([]).projectsText() == ["No projects: no todo is open."])
    }

    @Test func reportsCountWaitingTodosAndLeaveOutTrashedAndExpiredOnes() {
        let now = Date(timeIntervalSince1970: 2_000_000_000)
        func item(_ change: (inout TodoItem) -> Void) -> TodoItem {
            var item = TodoItem(key: RecordKey(scope: .private, zoneName: "Todos", recordName: "t"), title: "T")
            change(&item)
            return item
        }
        #expect(ReportCounting.standing(of: item { $0.wait = now.addingTimeInterval(3600) }, at: now) == .open)
        #expect(ReportCounting.standing(of: item { $0.isCompleted = true }, at: now) == .done)
        #expect(ReportCounting.standing(of: item { $0.isTrashed = true }, at: now) == nil)
        #expect(ReportCounting.standing(of: item { $0.until = now }, at: now) == nil)
        #expect(ReportCounting.standing(of: item { $0.until = now.addingTimeInterval(1) }, at: now) == .open)
        let tags = TagCounts([["garden", "Home"], ["home", "HOME"], []]).rows
        #expect(tags.map(\.name) == ["garden", "Home"] && tags.map(\.count) == [1, 2], "\(tags)")
    }
}
