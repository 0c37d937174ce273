import Foundation
import Terminal
import Testing
import TodoPlanning
import TodoUI

/// The first frames of a large cache: rows arrive in chunks (in the store's order, not the display's) while the
/// list is on screen and keys work.
@Suite("Rows arriving while the cache is read")
struct LoadingTests {
    /// `count` rows named `prefix0…`, with priority `priority` (higher priorities are listed first).
    static func rows(_ prefix: String, _ count: Int, priority: Int) -> [TodoRow] {
        (0..<count).map { TodoRow(id: "\(prefix)\($0)", title: "\(prefix) todo \($0)", priority: priority) }
    }

    static let allScopes: Set<Scope> = [.private, .shared, .public]

    /// A state as the app's first frame has it: nothing read yet, the loading line up.
    static func loadingState() -> AppState {
        var state = AppState(status: Fixture.online, size: TerminalSize(width: 60, height: 12), now: Fixture.now, calendar: Fixture.utc)
        state.showLoading(FetchProgress(fetched: 0))
        return state
    }

    /// Chunk `index` of `count` of a read of every scope, as the app's loader posts it.
    static func chunk(_ rows: [TodoRow], index: Int, of count: Int) -> RowChanges {
        RowChanges(reloaded: index == 0 ? allScopes : [], reloadFinished: index == count - 1 ? allScopes : [], rows: rows)
    }

    @Test func theLoadingLineShowsBeforeAnyRow() {
        var state = Self.loadingState()
        state.showLoading(FetchProgress(fetched: 2_000, total: 100_000))
        var screen = Screen(width: 60, height: 12)
        render(state, into: &screen)
        let text = screen.lines.joined(separator: "\n")
        #expect(text.contains("loading 2,000 of 100,000"))
        #expect(text.contains("Loading…"))
        #expect(!text.contains("No todos"), "an unread cache is not an empty one")
    }

    @Test func aSelectedTodoKeepsItsRecordAndItsLineWhileRowsArrive() {
        var state = Self.loadingState()
        state.apply(Self.chunk(Self.rows("low", 30, priority: 0), index: 0, of: 3), status: Fixture.online)
        for _ in 0..<3 { _ = state.reduce(.char("j")) }
        let chosen = state.selectedRow?.id
        let line = state.selection - state.scroll
        #expect(chosen != nil && state.selection == 3)

        // Rows listed above the chosen one arrive (higher priority), then rows listed below it.
        state.apply(Self.chunk(Self.rows("high", 40, priority: 3), index: 1, of: 3), status: Fixture.online)
        #expect(state.selectedRow?.id == chosen, "the selection stays on the chosen todo")
        #expect(state.selection - state.scroll == line, "and on its line of the screen")
        state.apply(Self.chunk(Self.rows("none", 20, priority: 0) + Self.rows("mid", 5, priority: 1), index: 2, of: 3), status: Fixture.online)
        state.showLoading(nil)
        #expect(state.selectedRow?.id == chosen)
        #expect(state.selection - state.scroll == line)
        #expect(state.rows(in: .todos).count == 95, "every chunk's rows are there, none twice")
        #expect(state.loading == nil)
    }

    @Test func untouchedTheListShowsItsTopAsRowsArrive() {
        var state = Self.loadingState()
        state.apply(Self.chunk(Self.rows("low", 30, priority: 0), index: 0, of: 2), status: Fixture.online)
        #expect(state.selection == 0 && state.scroll == 0)
        state.apply(Self.chunk(Self.rows("high", 40, priority: 3), index: 1, of: 2), status: Fixture.online)
        state.showLoading(nil)
        #expect(state.selection == 0 && state.scroll == 0, "nobody chose a row: the list shows its top")
        #expect(state.selectedRow?.id == state.rows(in: .todos).first?.id)
        #expect(state.selectedRow?.title.hasPrefix("high") == true)

        // Once loaded, later changes keep the selected record (the usual rule).
        let chosen = state.selectedRow?.id
        state.apply(RowChanges(rows: Self.rows("urgent", 3, priority: 3).map { var row = $0; row.due = Fixture.due(2026, 1, 1); return row }),
                    status: Fixture.online)
        #expect(state.selectedRow?.id == chosen)
    }

    @Test func aKeyDuringLoadingIsHandledAndEndsTheTopFollowing() {
        var state = Self.loadingState()
        state.apply(Self.chunk(Self.rows("low", 30, priority: 0), index: 0, of: 2), status: Fixture.online)
        _ = state.reduce(.char("c"))  // hide completed: any key says the person is at the keyboard
        _ = state.reduce(.char("c"))
        let chosen = state.selectedRow?.id
        state.apply(Self.chunk(Self.rows("high", 40, priority: 3), index: 1, of: 2), status: Fixture.online)
        #expect(state.selectedRow?.id == chosen)
        #expect(state.selection - state.scroll == 0)
        #expect(state.selection == 40, "the chosen todo moved down the list, and the view with it")
    }
}
