import CloudServer
import Foundation
import TestSupport
import Testing

/// Golden screens of the real app's Next and calendar views and of `todo burndown`, in tmux at 80×24 under
/// `NO_COLOR`: every mark still reads without colour (reverse, bold, underline only), and not one colour escape
/// reaches the terminal. `TODO_TODAY` fixes the day the app and the report are drawn as of.
@Suite("Next, calendar and burndown at 80×24 under NO_COLOR", .serialized)
struct ReportViewsNoColorTests {
    static let nextView = """
        [Todos 4]  Shared 0   Public 0  [Next 4]
         Most urgent first (4)
        >[ ] File taxes                                        !!! 2026-03-01     18.00
         [ ] Pay rent +home                                     !! 2026-03-10     13.73
         [ ] Plan the trip                                         2026-03-12      8.11
         [ ] Read book +someday                                                    0.80
        """

    static let calendarView = """
        [Todos 4]  Shared 0   Public 0   T Today
                                           March 2026
              Mon       Tue       Wed       Thu       Fri       Sat       Sun
                                                                           1 •1
               2         3         4         5         6         7         8
               9       [10]•1     11        12 •1     13        14        15
              16        17        18        19        20        21        22
              23        24        25        26        27        28        29
              30        31

         Tue 10 March 2026: 1 todo due
         [ ] Pay rent
        """

    /// The SGR parameters of every escape sequence in `text` that sets a colour (30–38, 40–48, 90–97, 100–107).
    static func colourEscapes(_ text: String) -> [String] {
        var found: [String] = []
        var rest = Substring(text)
        while let start = rest.range(of: "\u{1B}[") {
            let after = rest[start.upperBound...]
            guard let end = after.firstIndex(where: { $0.isLetter }) else { break }
            if after[end] == "m" {
                let parameters = after[..<end].split(separator: ";").compactMap { Int($0) }
                if parameters.contains(where: { (30...38).contains($0) || (40...48).contains($0) || (90...97).contains($0) || (100...107).contains($0) }) {
                    found.append(String(after[..<end]))
                }
            }
            rest = after[after.index(after: end)...]
        }
        return found
    }

    @Test func theViewsReadWithoutColour() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        let cli = TodoCommandLine(stage: stage)
        let environment = ["TZ": "UTC", "TODO_TODAY": "2026-03-10"]
        for words in [
            ["add", "File taxes", "--due", "2026-03-01", "--priority", "3"],
            ["add", "Pay rent", "--due", "2026-03-10", "--priority", "2", "--tag", "home"],
            ["add", "Plan the trip", "--due", "2026-03-12"],
            ["add", "Read book", "--tag", "someday"],
        ] {
            let added = try await cli.run("alice", words, environment: environment)
            #expect(added.status == 0, "\(added.allText)")
        }

        let tmux = stage.tmux
        let app = stage.app(account: "alice", device: "main", environment: ["TZ=UTC", "NO_COLOR=1", "TODO_TODAY=2026-03-10"])
        tmux.run(["new-session", "-d", "-s", "views", "-x", "80", "-y", "24", app + "; echo EXIT=$?; sleep 600"])
        let pane = "views:0.0"
        try await tmux.wait(pane, "synced")
        try await tmux.wait(pane, "Read book")
        // The screen below the header (whose "synced … ago" moves on) down to the status line.
        func body(_ screen: String, lines: Int) -> String {
            screen.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().prefix(lines)
                .map { String($0).replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }.joined(separator: "\n")
        }

        tmux.keys(pane, "N")
        try await tmux.wait(pane, "0.80")  // the last row of the ranking drawn
        let next = tmux.capture(pane)
        #expect(body(next, lines: 6) == Self.nextView, "\n\(next)")
        let nextEscapes = tmux.run(["capture-pane", "-p", "-e", "-t", pane])
        #expect(Self.colourEscapes(nextEscapes).isEmpty, "colour under NO_COLOR: \(Self.colourEscapes(nextEscapes))")
        #expect(nextEscapes.contains("\u{1B}[1;7m>") || nextEscapes.contains("\u{1B}[7m>"), "the selected row is reversed:\n\(nextEscapes)")

        tmux.keys(pane, "N")
        try await tmux.wait(pane, "T Today")  // back on the list, whose rows also read "[ ] Pay rent"
        tmux.keys(pane, "C")
        // The whole view drawn: the day's heading, then its todo on the last line (the list's row carries "+home").
        let drawnWhole = await eventually(15) { body(tmux.capture(pane), lines: 12).hasSuffix("1 todo due\n [ ] Pay rent") }
        #expect(drawnWhole, "\n\(tmux.capture(pane))")
        let calendar = tmux.capture(pane)
        #expect(body(calendar, lines: 12) == Self.calendarView, "\n\(calendar)")
        let calendarEscapes = tmux.run(["capture-pane", "-p", "-e", "-t", pane])
        #expect(Self.colourEscapes(calendarEscapes).isEmpty, "colour under NO_COLOR: \(Self.colourEscapes(calendarEscapes))")
        tmux.keys(pane, "C")  // closes it (Esc would wait for a key that could follow it)
        try await tmux.wait(pane, "[Todos 4]  Shared 0   Public 0   T Today")
        tmux.keys(pane, "q")
        try await tmux.wait(pane, "EXIT=0")

        // The burndown at 80 columns on a terminal under NO_COLOR is the plain chart a pipe gets, line for line.
        let today = String(ISO8601DateFormatter().string(from: Date()).prefix(10))
        let piped = try await cli.run("alice", ["burndown", "--offline"], environment: ["TZ": "UTC", "TODO_TODAY": today, "COLUMNS": "80"])
        #expect(piped.status == 0, "\(piped.allText)")
        let burndown = [
            "env", "LANG=C.UTF-8", "TERM=xterm-256color", "TZ=UTC", "NO_COLOR=1", "TODO_TODAY=\(today)", stage.binary, "burndown", "--offline",
            "--server", stage.server.baseURL.absoluteString, "--data-dir", stage.directory.appendingPathComponent("devices").path,
            "--account", "alice", "--password", "e2e-password-alice", "--device", "main",
        ].map { "'\($0)'" }.joined(separator: " ")
        tmux.run(["new-window", "-t", "views", burndown + "; echo DONE=$?; sleep 600"])
        let chartPane = "views:1.0"
        try await tmux.wait(chartPane, "DONE=0")
        let drawn = tmux.capture(chartPane).split(separator: "\n", omittingEmptySubsequences: false).map {
            String($0).replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }
        let printed = piped.output.split(separator: "\n").map(String.init)
        #expect(Array(drawn.prefix(printed.count)) == printed, "\n\(drawn.joined(separator: "\n"))\n---\n\(piped.output)")
        #expect(printed.count == 21 && printed.last?.contains("today: 4 pending, 0 done") == true, "\(piped.output)")
        let chartEscapes = tmux.run(["capture-pane", "-p", "-e", "-t", chartPane])
        #expect(Self.colourEscapes(chartEscapes).isEmpty && !chartEscapes.contains("\u{1B}["), "plain text only:\n\(chartEscapes)")
        await stage.server.shutdown()
    }
}
