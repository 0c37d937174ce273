import Foundation
import Terminal
import Testing
import TodoPlanning
import TodoUI

@Suite("U redoes what u undid")
@MainActor
struct RedoTests {
    @Test func redoAToggleThenUndoItAgain() {
        let (session, terminal) = makeSession()
        press(session, .char("G"))
        #expect(press(session, .char(" ")) == [.setCompleted(id: "t4", false)])
        #expect(press(session, .char("u")) == [.setCompleted(id: "t4", true)])
        #expect(session.state.redoDepth == 1)
        #expect(press(session, .char("U")) == [.setCompleted(id: "t4", false)])
        #expect(session.state.rows(in: .todos).first { $0.id == "t4" }?.isCompleted == false)
        #expect(terminal.lastScreen?.lines.last?.hasPrefix("Redid: ") == true, "\(terminal.lastScreen?.lines.last ?? "")")
        // The redo is an undo step again.
        #expect(press(session, .char("u")) == [.setCompleted(id: "t4", true)])
        #expect(press(session, .char("U")) == [.setCompleted(id: "t4", false)])
    }

    @Test func redoAnEditAndADelete() {
        let (session, _) = makeSession()
        press(session, .char("j"), .char("e"))
        press(session, .end)
        type(session, " and eggs")
        press(session, .enter)
        press(session, .char("u"))
        #expect(session.state.selectedRow?.title == "Buy milk")
        #expect(press(session, .char("U")) == [.edit(id: "t1", TodoChanges(title: "Buy milk and eggs"))])
        #expect(session.state.rows(in: .todos).first { $0.id == "t1" }?.title == "Buy milk and eggs")

        press(session, .char("g"), .char("d"), .char("y"))
        #expect(session.state.rows(in: .todos).first { $0.id == "t2" } == nil)
        press(session, .char("u"))
        #expect(session.state.rows(in: .todos).first { $0.id == "t2" } != nil)
        #expect(press(session, .char("U")) == [.delete(id: "t2")])
        #expect(session.state.rows(in: .todos).first { $0.id == "t2" } == nil)
    }

    @Test func aNewActionForgetsWhatCouldBeRedone() {
        let (session, terminal) = makeSession()
        press(session, .char("G"), .char(" "), .char("u"))
        #expect(session.state.redoDepth == 1)
        press(session, .char("g"), .char(" "))
        #expect(session.state.redoDepth == 0)
        #expect(press(session, .char("U")) == [])
        #expect(terminal.lastScreen?.lines.last?.hasPrefix("Nothing to redo.") == true, "\(terminal.lastScreen?.lines.last ?? "")")
    }
}
