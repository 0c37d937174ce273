import Foundation
import Terminal
import Testing
import TodoPlanning
import TodoUI

/// Issue 27's fields in the app: the edit form sets wait, scheduled, until, depends and the project; rows and details
/// say what blocks a todo; the Next view ranks blocked and blocking todos as `todo next` does; `X` switches the
/// context, and the add form takes what the context writes.
@MainActor
@Suite("Fields, blockers and contexts in the app")
struct FieldsAndBlockersTests {
    /// `Fixture.planned` with Call plumber (a3) waiting on Pay rent (a1).
    func blockedSession(width: Int = 80, height: Int = 24, savedFilters: [SavedFilter] = []) -> (UISession, TextTerminal) {
        let terminal = TextTerminal(width: width, height: height)
        let ids = SequentialIDs()
        var state = AppState(
            status: Fixture.online, now: Fixture.now, calendar: Fixture.utc, makeID: { ids.make() }, savedFilters: savedFilters)
        var rows = Fixture.planned
        rows[2].depends = ["a1"]
        state.update(rows: rows, status: Fixture.online)
        let session = UISession(terminal: terminal, state: state, clock: { Fixture.now })
        session.redraw()
        return (session, terminal)
    }

    func line(_ terminal: TextTerminal, containing text: String) -> String {
        terminal.text.split(separator: "\n").first { $0.contains(text) }.map(String.init) ?? ""
    }

    @Test func blockedRowsDetailsAndTheNextRanking() {
        let (session, terminal) = blockedSession()
        #expect(line(terminal, containing: "Call plumber").contains("(blocked by Pay rent)"), "\(terminal.text)")
        #expect(!line(terminal, containing: "Pay rent").contains("blocked"))

        // Next: blocking raises Pay rent by 8 (13.73 → 21.73), blocked lowers Call plumber by 5 (8.23 → 3.23),
        // the coefficients and the order `todo next` uses (`NextRanking`).
        press(session, .char("N"))
        #expect(line(terminal, containing: "Pay rent").hasSuffix("21.73"), "\(terminal.text)")
        #expect(line(terminal, containing: "Call plumber").hasSuffix("3.23"), "\(terminal.text)")
        let ranked = session.state.agenda.compactMap { line -> String? in if case .todo(let row) = line { row.id } else { nil } }
        #expect(ranked == ["a1", "a5", "a4", "a2", "a7", "s1", "a3", "a6"], "\(ranked)")

        // The details of each side.
        while session.state.selectedRow?.id != "a3" { press(session, .char("j")) }
        press(session, .char("o"))
        #expect(line(terminal, containing: "Waits on").contains("Pay rent · ID a1"), "\(terminal.text)")
        press(session, .escape)
        while session.state.selectedRow?.id != "a1" { press(session, .char("k")) }
        press(session, .char("o"))
        #expect(line(terminal, containing: "Blocking").contains("an open todo waits on it"), "\(terminal.text)")
        press(session, .escape)

        // Done with the blocker: nothing blocks Call plumber any more.
        press(session, .char(" "))
        press(session, .char("N"))
        #expect(!line(terminal, containing: "Call plumber").contains("blocked"), "\(terminal.text)")
    }

    @Test func theFormSetsTheNewFields() throws {
        let (session, terminal) = blockedSession()
        while session.state.selectedRow?.id != "a6" { press(session, .char("j")) }
        press(session, .char("e"))
        #expect(terminal.text.contains("Scheduled") && terminal.text.contains("Depends") && terminal.text.contains("Project"), "\(terminal.text)")
        func fill(_ field: FormField, _ text: String) {
            guard case .edit(let form) = session.state.mode else { return }
            let steps = (field.rawValue - form.focus.rawValue + FormField.allCases.count) % FormField.allCases.count
            for _ in 0..<steps { press(session, .tab) }
            press(session, .ctrl("u"))
            type(session, text)
        }
        fill(.wait, "2026-03-20")
        fill(.scheduled, "2026-03-12 09:00")
        fill(.until, "2026-04-01")
        fill(.depends, "pay rent")
        fill(.project, "Home.Garden")
        let effects = press(session, .enter)
        #expect(effects.count == 3, "\(effects) \(terminal.text)")
        guard case .create(let listID, let list) = effects.first else {
            Issue.record("a new list first: \(effects)")
            return
        }
        #expect(list.kind == .list && list.title == "Home.Garden")
        guard case .edit(id: "a6", let changes) = effects[1] else {
            Issue.record("then the edit: \(effects)")
            return
        }
        #expect(changes.wait == .some(Fixture.utc.date(from: DateComponents(year: 2026, month: 3, day: 20))))
        #expect(changes.scheduled == .some(Fixture.utc.date(from: DateComponents(year: 2026, month: 3, day: 12, hour: 9))))
        #expect(changes.until == .some(Fixture.utc.date(from: DateComponents(year: 2026, month: 4, day: 1))))
        #expect(changes.depends == ["a1"])
        #expect(effects[2] == .move(id: "a6", toList: listID))
        func find(_ id: String) -> TodoRow? { Tab.allCases.flatMap { session.state.rows(in: $0) }.first { $0.id == id } }
        let edited = try #require(find("a6"))
        #expect(edited.depends == ["a1"] && edited.listID == listID && edited.scheduled != nil)

        // Undo puts every field and the list back.
        press(session, .char("u"))
        #expect(find("a6")?.depends == [] && find("a6")?.listID == nil)
    }

    @Test func theFormRefusesWhatCannotBe() {
        let (session, terminal) = blockedSession()
        // Pay rent waiting on Call plumber would close a cycle (Call plumber waits on Pay rent).
        while session.state.selectedRow?.id != "a1" { press(session, .char("j")) }
        press(session, .char("e"))
        func fill(_ field: FormField, _ text: String) {
            guard case .edit(let form) = session.state.mode else { return }
            let steps = (field.rawValue - form.focus.rawValue + FormField.allCases.count) % FormField.allCases.count
            for _ in 0..<steps { press(session, .tab) }
            press(session, .ctrl("u"))
            type(session, text)
        }
        fill(.depends, "call plumber")
        #expect(press(session, .enter).isEmpty)
        #expect(terminal.text.contains("Depends: that would make a cycle: 'Pay rent' → 'Call plumber' → 'Pay rent'."), "\(terminal.text)")
        fill(.depends, "Pay rent")
        #expect(press(session, .enter).isEmpty)
        #expect(terminal.text.contains("Depends: a todo cannot wait on itself."), "\(terminal.text)")
        fill(.depends, "nothing like it")
        #expect(press(session, .enter).isEmpty)
        #expect(terminal.text.contains("Depends: no open todo of this list's account is 'nothing like it'."), "\(terminal.text)")
        fill(.depends, "")
        fill(.wait, "whenever")
        #expect(press(session, .enter).isEmpty)
        #expect(terminal.text.contains("Wait:"), "\(terminal.text)")
        press(session, .escape)
    }

    @Test func xSwitchesTheContextAndTheAddFormTakesWhatItWrites() {
        let filters = [SavedFilter(name: "work", text: "+work"), SavedFilter(name: "errands", text: "+errands project:Errands")]
        let (session, terminal) = blockedSession(savedFilters: filters)
        #expect(press(session, .char("X")) == [.setContext("work")])
        #expect(terminal.text.hasPrefix("CloudTodo · alice · laptop · online · context work ·"), "\(terminal.text)")
        #expect(session.state.visibleRows.map(\.id) == ["a2", "a7"])
        #expect(terminal.text.contains("Context 'work': +work; new todos get +work"), "\(terminal.text)")
        press(session, .char("a"))
        guard case .edit(let workForm) = session.state.mode else {
            Issue.record("the add form opens")
            return
        }
        #expect(workForm[.tags].text == "work" && workForm[.project].text.isEmpty)
        press(session, .escape)

        // A context with a project: the new todo goes into that list, made first since none has its title.
        #expect(press(session, .char("X")) == [.setContext("errands")])
        #expect(session.state.visibleRows.isEmpty, "no todo is in Errands yet")
        press(session, .char("a"))
        guard case .edit(let form) = session.state.mode else {
            Issue.record("the add form opens")
            return
        }
        #expect(form[.tags].text == "errands" && form[.project].text == "Errands")
        type(session, "Post the parcel")
        let effects = press(session, .enter)
        #expect(effects.count == 2, "a new list Errands, then the todo in it: \(effects)")
        if case .create(let listID, let list)? = effects.first, case .create(_, let draft)? = effects.last {
            #expect(list.kind == .list && list.title == "Errands")
            #expect(draft.tags == ["errands"] && draft.listID == listID)
        } else {
            Issue.record("\(effects)")
        }

        #expect(press(session, .char("X")) == [.setContext(nil)])
        #expect(!terminal.text.contains("context errands") && session.state.context == nil)
        #expect(Keymap.standard.keyLabel(for: .nextContext) == "X")
    }
}
