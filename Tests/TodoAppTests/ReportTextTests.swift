import Foundation
import Testing
import TodoApp

/// The reports' text as printed: plain (NO_COLOR, a pipe) and with colour, at 80 columns.
@Suite("Report text")
struct ReportTextTests {
    @Test func summaryPlainAndInColour() {
        let summary = ProjectSummary([
            (path: "Home", isCompleted: false), (path: "Home.Garden", isCompleted: true), (path: "Home . Garden", isCompleted: false),
            (path: nil, isCompleted: false), (path: "work", isCompleted: true),
        ])
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
}
