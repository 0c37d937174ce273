import CloudServer
import Foundation
import Terminal
import Testing

/// The real app in tmux at 80×24 with titles terminals measure differently (ZWJ sequences, flags, a lone regional
/// indicator, a tag sequence, emoji on text bases, a keycap, a flood of marks): on the Shared tab every row keeps its
/// due date at one column and its `RO` marker on the row, and going back to the Todos tab leaves no trace of them.
@Suite("Widths as drawn in a real terminal", .serialized)
struct DrawnWidthTerminalTests {
    static let titles = [
        "Family 👩‍👩‍👧‍👦 four", "Rainbow 🏳️‍🌈 flag", "Flags 🇩🇪🇫🇷 pair", "Lone 🇩 indicator", "Scotland 🏴󠁧󠁢󠁳󠁣󠁴󠁿 tags",
        "Heart ❤️ keycap 1️⃣ end", "Z" + String(repeating: "\u{0336}\u{0489}", count: 20) + "algo",
    ]

    @Test func dueDatesAndReadOnlyMarkersKeepTheirColumns() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        let cli = TodoCommandLine(stage: stage)
        let list = try await cli.run("mallory", ["newlist", "Wide titles"])
        let listID = list.output.trimmingCharacters(in: .whitespacesAndNewlines)
        for title in Self.titles {
            let added = try await cli.run("mallory", ["add", title, "--due", "2026-12-01", "--list", listID])
            #expect(added.status == 0, "\(added.allText)")
        }
        #expect(try await cli.run("mallory", ["share", listID, "--with", "alice", "--read-only"]).status == 0)
        #expect(try await cli.run("alice", ["accept"]).status == 0)
        #expect(try await cli.run("alice", ["add", "Plain own todo", "--due", "2026-12-01"]).status == 0)

        let tmux = stage.tmux
        tmux.run(["new-session", "-d", "-s", "widths", "-x", "80", "-y", "24", stage.app(account: "alice", device: "main") + "; echo EXIT=$?; sleep 600"])
        let pane = "widths:0.0"
        try await tmux.wait(pane, "synced")
        try await tmux.wait(pane, "Plain own todo")
        let todosBefore = tmux.capture(pane)
        tmux.keys(pane, "Tab")
        try await tmux.wait(pane, "Scotland")
        let shared = tmux.capture(pane)
        let rows = shared.split(separator: "\n").map(String.init).filter { $0.contains("2026-12-01") }
        #expect(rows.count == Self.titles.count, "\(shared)")
        var dateColumns: Set<Int> = []
        for row in rows {
            #expect(row.hasSuffix("2026-12-01  RO"), "the RO marker stays on the row: \(row)")
            if let range = row.range(of: "2026-12-01") { dateColumns.insert(displayWidth(row[..<range.lowerBound])) }
        }
        #expect(dateColumns.count == 1, "the due dates start at columns \(dateColumns.sorted()):\n\(shared)")
        tmux.keys(pane, "BTab")
        try await tmux.wait(pane, "[Todos")
        // The list part of the screen (the header and the bottom line move on with time and counts).
        func listRows(_ screen: String) -> [Substring] { Array(screen.split(separator: "\n", omittingEmptySubsequences: false).dropFirst(2).dropLast(2)) }
        let todosAfter = tmux.capture(pane)
        #expect(listRows(todosAfter) == listRows(todosBefore), "the Todos tab is drawn as before:\n\(todosAfter)")
        tmux.keys(pane, "q")
        try await tmux.wait(pane, "EXIT=0")
        await stage.server.shutdown()
    }
}
