import Foundation
import Terminal
import Testing
import TodoPlanning
import TodoUI

/// Changes applied to a state must leave exactly what a state built from the final rows shows, whichever way they
/// are applied (row by row, merged, or regrouped because a list changed).
@Suite("Applying changes equals rebuilding")
struct ChangeApplyTests {
    /// Rows with clashing titles, priorities, due dates, completion, notes and wide text, so every sort key matters.
    static func rows(_ count: Int, seed: Int, lists: [String] = []) -> [TodoRow] {
        let titles = ["Buy milk", "buy MILK", "Renew passport", "写周报", "Ärger melden", "Call plumber", "zebra", "Äpfel"]
        return (0..<count).map { index in
            let mix = (index * 7919 + seed * 104_729) % 1_000_003
            return TodoRow(
                id: id(index), title: "\(titles[mix % titles.count]) \(mix % 5)", notes: mix % 3 == 0 ? "Note \(mix % 11)" : "",
                isCompleted: mix % 4 == 0, due: mix % 6 == 0 ? nil : DueDate(Date(timeIntervalSince1970: Double(mix % 9) * 86_400), allDay: true),
                priority: mix % 4, listID: lists.isEmpty || mix % 2 == 0 ? nil : lists[mix % lists.count])
        }
    }

    /// Every other id a canonical UUID (held packed), the rest text, so lookups, removals and ties cross both forms.
    static func id(_ index: Int) -> String {
        guard index % 2 == 0 else { return "r\(index)" }
        let digits = String(index * 2_654_435_761 % 0xFFFF_FFFF_FFFF, radix: 16)
        return "0190aa\(index % 10)c-4b70-7000-8365-" + String(repeating: "0", count: 12 - digits.count) + digits
    }

    static func state(_ rows: [TodoRow]) -> AppState {
        var state = AppState(status: Fixture.online, now: Fixture.now, calendar: Fixture.utc)
        state.update(rows: rows, status: Fixture.online)
        return state
    }

    /// Applies `changes` to a state of `before` and compares it with a state of `after`, also through a filter.
    static func check(before: [TodoRow], after: [TodoRow], _ changes: RowChanges) {
        var applied = state(before)
        applied.apply(changes, status: Fixture.online)
        var rebuilt = state(after)
        #expect(applied.rows(in: .todos).map(\.id) == rebuilt.rows(in: .todos).map(\.id))
        #expect(applied.rows(in: .todos) == rebuilt.rows(in: .todos), "same rows, same values")
        #expect(applied.openCount(in: .todos) == rebuilt.openCount(in: .todos))
        #expect(applied.visibleRows.map(\.id) == rebuilt.visibleRows.map(\.id))
        for key in [Key.char("/"), .char("m"), .char("i")] {
            _ = applied.reduce(key)
            _ = rebuilt.reduce(key)
        }
        #expect(applied.visibleRows.map(\.id) == rebuilt.visibleRows.map(\.id))
        #expect(!applied.visibleRows.isEmpty)
    }

    @Test(arguments: [3, 40, 400])
    func editsAddsAndRemovalsMatchARebuild(changing count: Int) {
        let before = Self.rows(1_000, seed: 1)
        var after = before
        var changed: [TodoRow] = []
        for index in stride(from: 0, to: count, by: 2) {
            var row = after[index * 2]
            row.title = "Edited \(index) milk"
            row.isCompleted.toggle()
            after[index * 2] = row
            changed.append(row)
        }
        let added = (0..<(count / 4 + 1)).map { TodoRow(id: "new\($0)", title: "Added \($0) mint", priority: $0 % 4) }
        let removed = (0..<(count / 4 + 1)).map { after[after.count - 1 - $0 * 3].id }
        after.removeAll { removed.contains($0.id) }
        changed.removeAll { removed.contains($0.id) }  // a record is either changed or gone, never both
        after += added
        Self.check(before: before, after: after, RowChanges(rows: changed + added, removed: removed))
    }

    @Test func manyTodoChangesInATabWithListsMatchARebuild() {
        let lists = [TodoRow(id: "L1", title: "Groceries", kind: .list), TodoRow(id: "L2", title: "Work", kind: .list)]
        let before = lists + Self.rows(800, seed: 5, lists: ["L1", "L2"])
        var after = before
        var changed: [TodoRow] = []
        for index in stride(from: 2, to: after.count, by: 9) {
            after[index].title = "Moved \(index) mint"
            after[index].listID = [nil, "L1", "L2"][index % 3]
            changed.append(after[index])
        }
        let added = (0..<60).map { TodoRow(id: "new\($0)", title: "Added \($0) milk", listID: [nil, "L1", "L2"][$0 % 3]) }
        let removed = stride(from: 5, to: after.count, by: 37).map { after[$0].id }.filter { id in !changed.contains { $0.id == id } }
        after.removeAll { removed.contains($0.id) }
        Self.check(before: before, after: after + added, RowChanges(rows: changed + added, removed: removed))
    }

    @Test func aRenamedListRegroupsItsTodos() {
        let lists = [TodoRow(id: "L1", title: "Groceries", kind: .list), TodoRow(id: "L2", title: "Work", kind: .list)]
        let before = lists + Self.rows(300, seed: 2, lists: ["L1", "L2"])
        var after = before
        after[0].title = "Zoo trip"
        Self.check(before: before, after: after, RowChanges(rows: [after[0]]))
    }

    @Test func aScopeReadAgainInChunksEndsWithExactlyItsRows() {
        let lists = [TodoRow(id: "L1", title: "Groceries", kind: .list), TodoRow(id: "L9", title: "Old list", kind: .list)]
        let before = lists + Self.rows(300, seed: 6, lists: ["L1", "L9"])
        let after = [lists[0]] + Self.rows(250, seed: 7, lists: ["L1"])
        var applied = Self.state(before)
        let chunks = stride(from: 0, to: after.count, by: 100).map { Array(after[$0..<min($0 + 100, after.count)]) }
        for (index, chunk) in chunks.enumerated() {
            applied.apply(
                RowChanges(
                    reloaded: index == 0 ? [.private] : [], reloadFinished: index == chunks.count - 1 ? [.private] : [], rows: chunk),
                status: Fixture.online)
            if index < chunks.count - 1 { #expect(applied.rows(in: .todos).count >= 300, "old rows stay until the read ends") }
        }
        let rebuilt = Self.state(after)
        #expect(applied.rows(in: .todos).map(\.id) == rebuilt.rows(in: .todos).map(\.id))
        #expect(applied.rows(in: .todos) == rebuilt.rows(in: .todos), "same rows, same values, none left unconfirmed")
        #expect(applied.openCount(in: .todos) == rebuilt.openCount(in: .todos))
    }

    @Test func aReloadedScopeReplacesItsTabAndKeepsTheOthers() {
        let publicRows = [TodoRow(id: "p1", title: "Board milk", scope: .public)]
        let before = Self.rows(200, seed: 3) + publicRows
        let after = Self.rows(150, seed: 4) + publicRows
        Self.check(before: before, after: after, RowChanges(reloaded: [.private], rows: Self.rows(150, seed: 4)))
    }
}
