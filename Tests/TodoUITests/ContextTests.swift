import Foundation
import Terminal
import Testing
import TodoPlanning
import TodoUI

/// The context (`todo context NAME`) in the app: a saved filter under every other, named in the header; and filter
/// words that find annotations as they find titles and notes.
@MainActor
@Suite("Contexts and annotation words in the app")
struct ContextTests {
    func session(context: SavedFilter?) -> (UISession, TextTerminal) {
        let terminal = TextTerminal(width: 80, height: 24)
        let ids = SequentialIDs()
        var state = AppState(status: Fixture.online, now: Fixture.now, calendar: Fixture.utc, makeID: { ids.make() })
        state.update(rows: Fixture.planned, status: Fixture.online)
        state.setContext(context)
        let session = UISession(terminal: terminal, state: state, clock: { Fixture.now })
        session.redraw()
        return (session, terminal)
    }

    @Test func theContextNarrowsEveryViewAndTheHeaderNamesIt() {
        let (session, terminal) = session(context: SavedFilter(name: "work", text: "+work"))
        #expect(terminal.text.hasPrefix("CloudTodo · alice · laptop · online · context work · synced 2 s ago\n"), "\(terminal.text)")
        #expect(session.state.visibleRows.map(\.id) == ["a2", "a7"])
        // A filter typed narrows the context; it does not replace it.
        press(session, .char("/"))
        type(session, "review")
        press(session, .enter)
        #expect(session.state.visibleRows.map(\.id) == ["a7"])
        press(session, .char("/"))
        press(session, .ctrl("u"), .enter)
        #expect(session.state.visibleRows.map(\.id) == ["a2", "a7"])
        // Today and Next list what the context lets through.
        press(session, .char("N"))
        #expect(session.state.agendaTodoCount == 2)
        press(session, .char("N"), .char("T"))
        #expect(session.state.agendaTodoCount == 2)
        // None: every todo, the header without it.
        let (everything, plain) = self.session(context: nil)
        #expect(everything.state.visibleRows.count == 8)
        #expect(!plain.text.contains("context"))
    }

    @Test func aContextThatDoesNotReadIsRefusedWithWhy() {
        let (session, _) = session(context: SavedFilter(name: "broken", text: "due.before:whenever"))
        #expect(session.state.context == nil)
        #expect(session.state.visibleRows.count == 8)
        #expect(session.state.message?.text.hasPrefix("The context 'broken' cannot be used:") == true, "\(String(describing: session.state.message))")
    }

    @Test func filterWordsFindAnnotations() {
        let (session, _) = session(context: nil)
        // "Fern looks dry" is an annotation of Water plants, in neither its title nor its notes.
        press(session, .char("/"))
        type(session, "fern")
        press(session, .enter)
        #expect(session.state.visibleRows.map(\.id) == ["a4"])
        // As a context too.
        let (ferns, _) = self.session(context: SavedFilter(name: "ferns", text: "fern"))
        #expect(ferns.state.visibleRows.map(\.id) == ["a4"])
    }
}
