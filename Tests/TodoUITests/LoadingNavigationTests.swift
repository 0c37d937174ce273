import Foundation
import Terminal
import Testing
import TodoPlanning
import TodoUI

/// Keys while the cache is read: rows sorted where they were read (`LoadedRows`) are swapped in, `G` and `g` keep
/// to the end and the top of the list as rows arrive, and a filter typed meanwhile applies to the rows that come.
@Suite("Navigation and filters while rows load")
struct LoadingNavigationTests {
    /// Every row read so far, as the app's loader posts it.
    static func loaded(_ rows: [TodoRow], order: TodoUI.SortOrder = .priority) -> LoadedRows { LoadedRows(rows, order: order) }

    static let low = LoadingTests.rows("low", 30, priority: 0)
    static let high = LoadingTests.rows("high", 40, priority: 3)
    static let none = LoadingTests.rows("none", 20, priority: 0)

    @Test func bottomWhileLoadingStaysAtTheEndAsRowsArriveThenItIsTheTrueEnd() {
        var state = LoadingTests.loadingState()
        state.replaceRows(with: Self.loaded(Self.low), status: Fixture.online)
        _ = state.reduce(.char("G"))
        #expect(state.selection == 29)
        // Rows listed above and below the row that was last arrive: the selection is on the last row still.
        state.replaceRows(with: Self.loaded(Self.low + Self.high), status: Fixture.online)
        #expect(state.selection == 69 && state.selectedRow?.id == state.visibleRows.last?.id)
        state.replaceRows(with: Self.loaded(Self.low + Self.high + Self.none), status: Fixture.online)
        state.showLoading(nil)
        #expect(state.selection == 89, "every row read: the selection is at the true end")
        #expect(state.selectedRow?.id == state.rows(in: .todos).last?.id)
        #expect(state.scroll == 89 - state.listHeight + 1, "and the end of the list is on screen")

        // Once loaded, a row listed after it does not move the selection (the usual rule).
        let chosen = state.selectedRow?.id
        state.apply(RowChanges(rows: [TodoRow(id: "zz", title: "zz last", priority: 0)]), status: Fixture.online)
        #expect(state.selectedRow?.id == chosen)
    }

    @Test func aKeyAfterBottomKeepsItsRecordInsteadOfTheEnd() {
        var state = LoadingTests.loadingState()
        state.replaceRows(with: Self.loaded(Self.low), status: Fixture.online)
        _ = state.reduce(.char("G"))
        _ = state.reduce(.char("k"))
        let chosen = state.selectedRow?.id
        let line = state.selection - state.scroll
        state.replaceRows(with: Self.loaded(Self.low + Self.high + Self.none), status: Fixture.online)
        #expect(state.selectedRow?.id == chosen, "k chose a todo: it stays selected")
        #expect(state.selection - state.scroll == line)
        #expect(state.selection == 68)
    }

    @Test func topWhileLoadingShowsTheTopAsRowsArrive() {
        var state = LoadingTests.loadingState()
        state.replaceRows(with: Self.loaded(Self.low), status: Fixture.online)
        for _ in 0..<5 { _ = state.reduce(.char("j")) }
        _ = state.reduce(.char("g"))
        state.replaceRows(with: Self.loaded(Self.low + Self.high), status: Fixture.online)
        #expect(state.selection == 0 && state.scroll == 0)
        #expect(state.selectedRow?.title.hasPrefix("high") == true, "the row listed first now, not the one first before")
    }

    @Test func aFilterTypedWhileLoadingAppliesToTheRowsThatArriveLater() {
        var state = LoadingTests.loadingState()
        let plumbers = (0..<12).map { TodoRow(id: "p\($0)", title: "Call the plumber #\($0)", priority: $0 % 4) }
        state.replaceRows(with: Self.loaded(Self.low + Array(plumbers.prefix(3))), status: Fixture.online)
        for key in "/plumb" { _ = state.reduce(.char(key)) }
        #expect(state.visibleCount == 3, "the filter applies at once to the rows read so far")
        state.replaceRows(with: Self.loaded(Self.low + Array(plumbers.prefix(3)) + Self.high + Array(plumbers.dropFirst(3))), status: Fixture.online)
        #expect(state.visibleCount == 12, "and to the rows read after it was typed")
        #expect(state.visibleRows.allSatisfy { $0.title.contains("plumber") })
        _ = state.reduce(.enter)
        state.replaceRows(with: Self.loaded(Self.low + plumbers + Self.high + Self.none), status: Fixture.online)
        state.showLoading(nil)
        #expect(state.visibleCount == 12 && state.appliedFilterText == "plumb")
        #expect(state.rows(in: .todos).count == 102)

        // The same through chunks of changes (the engine's rows after connecting).
        state.apply(RowChanges(rows: [TodoRow(id: "p99", title: "Plumber again", priority: 1)]), status: Fixture.online)
        #expect(state.visibleCount == 13)
    }

    @Test func rowsSortedInAnotherOrderThanTheListsAreSortedAgain() {
        var state = AppState(status: Fixture.online, size: TerminalSize(width: 60, height: 12), now: Fixture.now, calendar: Fixture.utc, sortOrder: .title)
        state.showLoading(FetchProgress(fetched: 0))
        state.replaceRows(with: Self.loaded(Self.high + Self.low, order: .priority), status: Fixture.online)
        let titles = state.rows(in: .todos).map(\.title)
        #expect(titles == titles.sorted { $0.lowercased() < $1.lowercased() }, "by title, as the list is ordered")
        #expect(titles.first == "high todo 0")
    }

    @Test func rowsOfEveryScopeGoToTheirTabsAndReplaceWhatWasThere() {
        var state = LoadingTests.loadingState()
        var shared = TodoRow(id: "s1", title: "Shared todo")
        shared.scope = .shared
        state.replaceRows(with: Self.loaded(Self.low + [shared]), status: Fixture.online)
        #expect(state.rows(in: .todos).count == 30 && state.rows(in: .shared).count == 1)
        state.replaceRows(with: Self.loaded(Self.high), status: Fixture.online)
        #expect(Set(state.rows(in: .todos).map(\.id)) == Set(Self.high.map(\.id)), "the rows read are all there is")
        #expect(state.rows(in: .todos).count == 40)
        #expect(state.rows(in: .shared).isEmpty)
        #expect(Self.loaded(Self.high + [shared]).count == 41)
    }

    @Test func takesSortedInOneByOneInAnyOrderGiveTheRowsOfOneSort() {
        // Todos in lists whose heading comes in a later take, and in lists whose heading came before; done todos,
        // due dates, shared rows.
        var all: [TodoRow] = []
        for index in 0..<300 {
            var row = TodoRow(
                id: "t\(index)", title: "Todo \(index % 17)", isCompleted: index % 5 == 0,
                due: index % 3 == 0 ? Fixture.due(2026, 3, 1 + index % 20) : nil, priority: index % 4,
                listID: index % 4 == 1 ? "L\(index % 3)" : nil)
            if index % 11 == 0 { row.scope = .shared }
            all.append(row)
        }
        all.insert(TodoRow(id: "L0", title: "Groceries", kind: .list), at: 10)
        all.insert(TodoRow(id: "L1", title: "Work", kind: .list), at: 150)
        all.insert(TodoRow(id: "L2", title: "Attic", kind: .list), at: 290)
        let takes = stride(from: 0, to: all.count, by: 40).map { Array(all[$0..<min($0 + 40, all.count)]) }
        let once = Self.loaded(all)
        for order in [takes, takes.reversed(), takes.enumerated().sorted { ($0.offset * 7) % 8 < ($1.offset * 7) % 8 }.map(\.element)] {
            var loaded = Self.loaded(order[0])
            for take in order.dropFirst() { loaded.add(take) }
            #expect(loaded.count == all.count)
            var sortedOnce = LoadingTests.loadingState()
            sortedOnce.replaceRows(with: once, status: Fixture.online)
            var sortedInTakes = LoadingTests.loadingState()
            sortedInTakes.replaceRows(with: loaded, status: Fixture.online)
            for tab in [Tab.todos, .shared] {
                #expect(sortedInTakes.rows(in: tab).map(\.id) == sortedOnce.rows(in: tab).map(\.id))
            }
            #expect(sortedInTakes.openCount(inList: "L1") == sortedOnce.openCount(inList: "L1"))
            #expect(sortedInTakes.rows(in: .shared).count == (0..<300).count { $0 % 11 == 0 })
        }
    }

    @Test(arguments: TodoUI.SortOrder.allCases)
    func aSortOfEveryRowListsThemAsInsertingThemOneByOneDoes(order: TodoUI.SortOrder) {
        // Ties on every field but the title, and on the title too (then the id decides).
        let rows = (0..<120).map { index in
            TodoRow(
                id: "r\((index * 37) % 120)", title: ["Milk", "milk", "Bread", "Zebra", "ärger"][index % 5], isCompleted: index % 7 == 0,
                due: index % 4 == 0 ? nil : index % 3 == 0 ? Fixture.due(2026, 3, 1 + index % 3) : Fixture.due(2026, 3, 1 + index % 3, 9),
                priority: index % 3, created: index % 6 == 0 ? nil : Fixture.day(2026, 1, 1 + index % 4))
        }
        var sorted = AppState(status: Fixture.online, size: TerminalSize(width: 60, height: 12), now: Fixture.now, calendar: Fixture.utc, sortOrder: order)
        sorted.replaceRows(with: Self.loaded(rows, order: order), status: Fixture.online)
        var inserted = AppState(status: Fixture.online, size: TerminalSize(width: 60, height: 12), now: Fixture.now, calendar: Fixture.utc, sortOrder: order)
        inserted.apply(RowChanges(rows: [rows[0]]), status: Fixture.online)
        for row in rows.dropFirst() { inserted.apply(RowChanges(rows: [row]), status: Fixture.online) }
        #expect(sorted.rows(in: .todos).map(\.id) == inserted.rows(in: .todos).map(\.id))
    }

    @Test func aNewerSetOfRowsReplacesAnOlderOneStillWaitingInTheInbox() {
        let inbox = UpdateInbox()
        inbox.post(.loaded(Self.loaded(Self.low), status: Fixture.online))
        inbox.post(.loading(FetchProgress(fetched: 30, total: 70)))
        inbox.post(.loaded(Self.loaded(Self.low + Self.high), status: Fixture.online))
        let updates = inbox.drain()
        #expect(updates.count == 2)
        guard case .loading = updates.first, case .loaded(let rows, _) = updates.last else {
            Issue.record("expected the progress, then the newer rows")
            return
        }
        #expect(rows.count == 70)
    }
}
