import Foundation
import Terminal
import Testing
import TodoPlanning
import TodoUI

extension Fixture {
    /// Todos with tags, times, a repeat and annotations; "now" is Tue 2026-03-10 12:00 UTC.
    static let planned: [TodoRow] = [
        TodoRow(id: "a1", title: "Pay rent", due: due(2026, 3, 10), priority: 2, tags: ["home"]),
        TodoRow(id: "a2", title: "Standup notes", due: due(2026, 3, 10, 9, 30), tags: ["work"]),
        TodoRow(id: "a3", title: "Call plumber", due: due(2026, 3, 13, 17), tags: ["home", "phone"]),
        TodoRow(
            id: "a4", title: "Water plants", notes: "Balcony first.\nThen the kitchen herbs, which need much less water.",
            due: due(2026, 3, 11), tags: ["garden"], repeatRule: "FREQ=WEEKLY",
            annotations: [Annotation(entry: day(2026, 3, 3).addingTimeInterval(8 * 3600), text: "Fern looks dry")]),
        TodoRow(id: "a5", title: "File taxes", due: due(2026, 3, 1), priority: 3),
        TodoRow(id: "a6", title: "Read book", tags: ["someday"]),
        TodoRow(id: "a7", title: "Review PR", due: due(2026, 3, 10, 15), tags: ["work"]),
        TodoRow(id: "a8", title: "Old chore", isCompleted: true, due: due(2026, 3, 9)),
        TodoRow(
            id: "s1", title: "Plan the trip", due: due(2026, 3, 12), scope: .shared, canUpdate: false, canDelete: false,
            trashBehaviour: .refuse(reason: "bob shared this list read-only."), lockReason: "bob shared this list read-only.",
            owner: "bob"),
    ]
}

/// A session over `Fixture.planned` (60×16 unless told), with saved filters and a sort order.
@MainActor
func makePlanningSession(
    width: Int = 60, height: Int = 16, sortOrder: TodoUI.SortOrder = .priority, savedFilters: [SavedFilter] = []
) -> (UISession, TextTerminal) {
    let terminal = TextTerminal(width: width, height: height)
    let ids = SequentialIDs()
    var state = AppState(
        status: Fixture.online, now: Fixture.now, calendar: Fixture.utc, makeID: { ids.make() }, sortOrder: sortOrder,
        savedFilters: savedFilters)
    state.update(rows: Fixture.planned, status: Fixture.online)
    let session = UISession(terminal: terminal, state: state, clock: { Fixture.now })
    session.redraw()
    return (session, terminal)
}
