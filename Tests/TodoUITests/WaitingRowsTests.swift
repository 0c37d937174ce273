import Foundation
import Terminal
import Testing
import TodoPlanning
import TodoUI

/// Waiting todos are out of the app's views until their wait date; `is:waiting` shows them, marked; active todos are
/// marked and ranked up in the Next view.
@MainActor
@Suite("Waiting and active rows")
struct WaitingRowsTests {
    func session(_ rows: [TodoRow]) -> (UISession, TextTerminal) {
        let terminal = TextTerminal(width: 80, height: 24)
        let ids = SequentialIDs()
        var state = AppState(status: Fixture.online, now: Fixture.now, calendar: Fixture.utc, makeID: { ids.make() })
        state.update(rows: rows, status: Fixture.online)
        let session = UISession(terminal: terminal, state: state, clock: { Fixture.now })
        session.redraw()
        return (session, terminal)
    }

    @Test func waitingRowsAreHiddenUntilAskedForAndMarked() {
        var later = TodoRow(id: "w1", title: "Repot the fern")
        later.wait = Fixture.now.addingTimeInterval(3 * 86_400)
        var passed = TodoRow(id: "w2", title: "Prune roses")
        passed.wait = Fixture.now.addingTimeInterval(-86_400)
        var expired = TodoRow(id: "w4", title: "Old coupon")
        expired.until = Fixture.now.addingTimeInterval(-60)
        var working = TodoRow(id: "w3", title: "Write the report")
        working.start = Fixture.now.addingTimeInterval(-600)
        let (session, terminal) = session([later, passed, working, expired])
        #expect(!terminal.text.contains("Repot the fern") && !terminal.text.contains("Old coupon"), "\(terminal.text)")
        #expect(terminal.text.contains("Prune roses") && terminal.text.contains("Write the report (active)"), "\(terminal.text)")
        press(session, .char("N"))
        #expect(!terminal.text.contains("Repot the fern"), "\(terminal.text)")
        #expect(terminal.text.contains("4.00"), "the active term ranks it: \(terminal.text)")
        press(session, .char("N"), .char("/"))
        type(session, "is:waiting")
        press(session, .enter)
        #expect(terminal.text.contains("Repot the fern (waiting)") && !terminal.text.contains("Prune roses"), "\(terminal.text)")
    }
}
