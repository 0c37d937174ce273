import Foundation
import Terminal
import Testing
import TodoPlanning
import TodoUI

@Suite("Marks, bulk actions, saved filters, skipping, the form's planning fields")
@MainActor
struct BulkAndPlanningActionTests {
    /// Marks Pay rent, Standup notes and Review PR (rows 2-4 under the priority order).
    func markThree(_ session: UISession) {
        press(session, .char("j"))
        press(session, .char("v"), .char("v"), .char("v"))
    }

    @Test func marksShowAndCount() {
        let (session, terminal) = makePlanningSession()
        markThree(session)
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 7]  Shared 1   Public 0   T Today
             [ ] File taxes                           !!! 2026-03-01
            *[ ] Pay rent +home                        !! 2026-03-10
            *[ ] Standup notes +work                     today 09:30
            *[ ] Review PR +work                         today 15:00
            >[ ] Water plants ↻ +garden                   2026-03-11
             [ ] Call plumber +home +phone                 Fri 17:00
             [ ] Read book +someday
             [x] Old chore                                2026-03-09





            3 marked · Space done · d delete · m move · p priority … 5/8
            """)
        #expect(session.state.marked == ["a1", "a2", "a7"])
        press(session, .escape)
        #expect(session.state.marked.isEmpty)
    }

    @Test func completingMarkedTodosIsOneBatchAndOneUndo() {
        let (session, _) = makePlanningSession()
        markThree(session)
        let effects = press(session, .char(" "))
        #expect(effects == [.batch([.setCompleted(id: "a1", true), .setCompleted(id: "a2", true), .setCompleted(id: "a7", true)])])
        #expect(session.state.undoDepth == 1)
        #expect(session.state.openCount(in: .todos) == 4)
        let undo = press(session, .char("u"))
        #expect(undo == [.batch([.setCompleted(id: "a1", false), .setCompleted(id: "a2", false), .setCompleted(id: "a7", false)])])
        #expect(session.state.openCount(in: .todos) == 7)
    }

    @Test func taggingMarkedTodosEditsOnlyThoseWithout() {
        let (session, terminal) = makePlanningSession()
        markThree(session)
        press(session, .char("+"))
        type(session, "work")
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 7]  Shared 1   Public 0   T Today
             [ ] File taxes                           !!! 2026-03-01
            *[ ] Pay rent +home                        !! 2026-03-10
            *[ ] Standup notes +work                     today 09:30
            *[ ] Review PR +work                         today 15:00
            >[ ] Water plants ↻ +garden                   2026-03-11
             [ ] Call plumber +home +phone                 Fri 17:00
             [ ] Read book +someday
             [x] Old chore                                2026-03-09





            Add tag to 3 todos: work
            """)
        let effects = press(session, .enter)
        #expect(effects == [.batch([.edit(id: "a1", TodoChanges(tags: ["home", "work"]))])])
        press(session, .char("-"))
        type(session, "+WORK")
        let removed = press(session, .enter)
        #expect(removed == [.batch([
            .edit(id: "a1", TodoChanges(tags: ["home"])), .edit(id: "a2", TodoChanges(tags: [])), .edit(id: "a7", TodoChanges(tags: [])),
        ])])
        #expect(press(session, .char("u")) == [.batch([
            .edit(id: "a1", TodoChanges(tags: ["home", "work"])), .edit(id: "a2", TodoChanges(tags: ["work"])),
            .edit(id: "a7", TodoChanges(tags: ["work"])),
        ])])
        press(session, .char("+"))
        type(session, "two words")
        #expect(press(session, .enter) == [])
        #expect(session.state.message?.text.contains("one word") == true)
    }

    @Test func priorityOfMarkedTodosAndOfOne() {
        let (session, _) = makePlanningSession()
        markThree(session)
        press(session, .char("p"))
        type(session, "3")
        #expect(press(session, .enter) == [.batch([.edit(id: "a1", TodoChanges(priority: 3)), .edit(id: "a2", TodoChanges(priority: 3)), .edit(id: "a7", TodoChanges(priority: 3))])])
        press(session, .escape, .char("G"), .char("k"))
        #expect(session.state.selectedRow?.id == "a6")
        press(session, .char("p"))
        type(session, "1")
        #expect(press(session, .enter) == [.edit(id: "a6", TodoChanges(priority: 1))])
    }

    @Test func deletingMarkedTodosAsksOnceAndUndoesAsOne() {
        let (session, terminal) = makePlanningSession()
        markThree(session)
        press(session, .char("d"))
        #expect(terminal.lastScreen?.lines.last == "Delete 3 marked todos? y/n")
        let effects = press(session, .char("y"))
        #expect(effects == [.batch([.delete(id: "a1"), .delete(id: "a2"), .delete(id: "a7")])])
        #expect(session.state.marked.isEmpty)
        #expect(session.state.openCount(in: .todos) == 4)
        guard case .batch(let restored)? = press(session, .char("u")).first else {
            Issue.record("undo should be one batch")
            return
        }
        #expect(restored.count == 3)
        #expect(session.state.openCount(in: .todos) == 7)
    }

    @Test func movingMarkedTodosToAList() {
        var rows = Fixture.planned
        rows.append(TodoRow(id: "L1", title: "Errands", kind: .list))
        let terminal = TextTerminal(width: 60, height: 16)
        var state = AppState(status: Fixture.online, now: Fixture.now, calendar: Fixture.utc)
        state.update(rows: rows, status: Fixture.online)
        let session = UISession(terminal: terminal, state: state, clock: { Fixture.now })
        markThree(session)
        press(session, .char("m"))
        #expect(terminal.text.contains("Move '3 marked todos' to"))
        press(session, .char("j"))
        #expect(press(session, .enter) == [.batch([.move(id: "a1", toList: "L1"), .move(id: "a2", toList: "L1"), .move(id: "a7", toList: "L1")])])
        #expect(press(session, .char("u")) == [.batch([.move(id: "a1", toList: nil), .move(id: "a2", toList: nil), .move(id: "a7", toList: nil)])])
    }

    @Test func savedFiltersCycleAndSave() {
        let saved = [SavedFilter(name: "work", text: "+work"), SavedFilter(name: "home", text: "+home")]
        let (session, terminal) = makePlanningSession(savedFilters: saved)
        press(session, .char("f"))
        #expect(session.state.visibleRows.map(\.id) == ["a2", "a7"])
        #expect(terminal.lastScreen?.lines[1].hasSuffix("filter work") == true)
        press(session, .char("f"))
        #expect(session.state.visibleRows.map(\.id) == ["a1", "a3"])
        press(session, .char("f"))
        #expect(session.state.appliedFilterText == "")
        #expect(session.state.visibleCount == 8)
        press(session, .char("/"))
        type(session, "is:repeating")
        press(session, .enter, .char("F"))
        type(session, "cycles")
        #expect(press(session, .enter) == [.saveFilter(name: "cycles", text: "is:repeating")])
        #expect(session.state.savedFilters.last == SavedFilter(name: "cycles", text: "is:repeating"))
    }

    @Test func skipOnlyRepeatingTodos() {
        let (session, _) = makePlanningSession()
        #expect(press(session, .char(">")) == [])
        #expect(session.state.message?.text.contains("does not repeat") == true)
        while session.state.selectedRow?.id != "a4" { press(session, .char("j")) }
        #expect(press(session, .char(">")) == [.skip(id: "a4")])
        #expect(press(session, .char("u")) == [.unskip(id: "a4")], "undo brings the occurrence back and takes the next one away")
    }

    @Test func formReadsTagsAndRepeatAndRefusesBadOnes() {
        let (session, terminal) = makePlanningSession()
        press(session, .char("a"))
        type(session, "Mow the lawn")
        press(session, .tab, .tab)
        type(session, "sat 10:00")
        press(session, .tab, .tab)
        type(session, "garden +outside bad,tag")
        press(session, .tab)
        type(session, "every fortnight")
        #expect(press(session, .enter) == [])
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 7]  Shared 1   Public 0   T Today
             New todo · Todos
                 Title Mow the lawn
                 Notes
                   Due sat 10:00
              Priority
            >     Tags garden +outside bad,tag
                Repeat every fortnight
                  Wait
             Scheduled
                 Until
               Depends
               Project
             Tags: a tag cannot contain , ('bad,tag').
            Enter save · Esc cancel · Tab/↑↓ field
            """)
        #expect(session.state.mode.formFocus == .tags)
        press(session, .ctrl("u"))
        type(session, "garden +outside garden")
        #expect(press(session, .enter) == [])
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 7]  Shared 1   Public 0   T Today
             New todo · Todos
                 Title Mow the lawn
                 Notes
                   Due sat 10:00
              Priority
                  Tags garden +outside garden
            >   Repeat every fortnight
                  Wait
             Scheduled
                 Until
               Depends
               Project
             Repeat: 'fortnight' is not a weekday or a unit; use mon…s…
            Enter save · Esc cancel · Tab/↑↓ field
            """)
        #expect(session.state.mode.formFocus == .repeat)
        press(session, .ctrl("u"))
        type(session, "every 2 weeks")
        let effects = press(session, .enter)
        #expect(effects == [.create(id: "n1", TodoDraft(
            title: "Mow the lawn", due: Fixture.due(2026, 3, 14, 10), tags: ["garden", "outside"], repeatRule: "FREQ=WEEKLY;INTERVAL=2"))])
    }

    @Test func editingKeepsTheRepeatAndSavesOnlyWhatChanged() {
        let (session, terminal) = makePlanningSession()
        while session.state.selectedRow?.id != "a4" { press(session, .char("j")) }
        press(session, .char("e"))
        #expect(terminal.text.contains("Repeat weekly"))
        #expect(terminal.text.contains("Tags garden"))
        press(session, .tab, .tab, .tab, .tab)
        type(session, " balcony")
        #expect(press(session, .enter) == [.edit(id: "a4", TodoChanges(tags: ["garden", "balcony"]))])
        press(session, .char("e"), .tab, .tab, .tab, .tab, .tab, .ctrl("u"))
        #expect(press(session, .enter) == [.edit(id: "a4", TodoChanges(repeatRule: .some(nil)))])
    }
}

extension Mode {
    /// The focused field when the form is open.
    var formFocus: FormField? {
        if case .edit(let form) = self { return form.focus }
        return nil
    }
}

@Suite("Planning fields from other accounts are inert")
@MainActor
struct HostilePlanningTests {
    @Test func tagsNotesAndAnnotationsCannotDriveTheTerminal() {
        let hostile = "\u{1B}]0;owned\u{07}\u{1B}[31mred\u{202E}evil\u{0}"
        let row = TodoRow(
            id: "h1", title: "Plain", notes: "line one\n" + hostile, due: Fixture.due(2026, 3, 10, 18), scope: .shared,
            tags: [hostile, "ok"], repeatRule: hostile,
            annotations: [Annotation(entry: Fixture.now, text: hostile + "\nsecond line")])
        let terminal = TextTerminal(width: 60, height: 24)
        var state = AppState(status: Fixture.online, now: Fixture.now, calendar: Fixture.utc)
        state.update(rows: [row], status: Fixture.online)
        let session = UISession(terminal: terminal, state: state, clock: { Fixture.now })
        for keys in [[Key.tab], [.char("T")], [.char("o")], [.escape, .char("T")]] {
            press(session, keys)
            let screen = terminal.lastScreen!
            #expect(screen.invariantViolations.isEmpty, "\(screen.invariantViolations)")
            #expect(!screen.text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x202E || $0.value == 0 })
        }
        #expect(terminal.text.contains("+␛]0;owned␇␛[31mred�evil␀"))
    }
}

/// Feeds a list of keys.
@MainActor
@discardableResult
func press(_ session: UISession, _ keys: [Key]) -> [Effect] {
    keys.flatMap { session.handle($0) }
}
