import Foundation
import Terminal
import Testing
import TodoPlanning
import TodoUI

/// Fixed clock and calendar so golden screens never depend on the machine.
enum Fixture {
    static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// 2026-03-10 12:00:00 UTC.
    static let now = utc.date(from: DateComponents(year: 2026, month: 3, day: 10, hour: 12))!

    static func day(_ year: Int, _ month: Int, _ day: Int) -> Date {
        utc.date(from: DateComponents(year: year, month: month, day: day))!
    }

    /// An all-day due date.
    static func due(_ year: Int, _ month: Int, _ day: Int) -> DueDate {
        DueDate(Fixture.day(year, month, day), allDay: true)
    }

    /// A due date at a time of day (UTC).
    static func due(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int = 0) -> DueDate {
        DueDate(utc.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute))!, allDay: false)
    }

    static let online = SyncStatus(
        account: "alice", device: "laptop", connection: .online, lastSync: now.addingTimeInterval(-2))
    static let signedOut = SyncStatus(account: nil, device: "laptop", connection: .signedOut)

    /// Own private todos.
    static let own: [TodoRow] = [
        TodoRow(id: "t1", title: "Buy milk", priority: 2, due: nil),
        TodoRow(id: "t2", title: "File taxes", due: due(2026, 3, 1), priority: 3),
        TodoRow(id: "t3", title: "Call mom", notes: "Sunday afternoon"),
        TodoRow(id: "t4", title: "Water plants", isCompleted: true, due: due(2026, 3, 9)),
        TodoRow(id: "t5", title: "Book dentist", due: due(2026, 3, 20), priority: 1),
    ]

    /// A read-only row shared by bob.
    static let sharedReadOnly = TodoRow(
        id: "s1", title: "Plan the trip", scope: .shared, canUpdate: false, canDelete: false,
        trashBehaviour: .refuse(reason: "bob shared this list read-only."),
        lockReason: "bob shared this list read-only.", owner: "bob")

    /// A public row created by alice: editable, not deletable (trash marks it).
    static let publicOwn = TodoRow(
        id: "p1", title: "Clean the kitchen", due: due(2026, 3, 11), scope: .public, canUpdate: true,
        canDelete: false, trashBehaviour: .markTrashed, owner: "alice")

    /// A public row by carol: read-only for alice.
    static let publicOther = TodoRow(
        id: "p2", title: "Fix the printer", priority: 1, scope: .public, canUpdate: false, canDelete: false,
        trashBehaviour: .refuse(reason: "only carol can change this todo."),
        lockReason: "posted by carol.", owner: "carol")

    static var all: [TodoRow] { own + [sharedReadOnly, publicOwn, publicOther] }
}

extension TodoRow {
    /// Convenience with the argument order the fixtures read best in.
    init(id: String, title: String, priority: Int, due: DueDate?) {
        self.init(id: id, title: title, due: due, priority: priority)
    }
}

/// Names new records n1, n2, … so effects are predictable.
final class SequentialIDs: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0

    func make() -> String {
        lock.lock()
        defer { lock.unlock() }
        next += 1
        return "n\(next)"
    }
}

/// A session on a 60×16 text terminal with the fixtures loaded.
@MainActor
func makeSession(
    rows: [TodoRow] = Fixture.all, status: SyncStatus = Fixture.online, width: Int = 60, height: Int = 16,
    keymap: Keymap = .standard
) -> (UISession, TextTerminal) {
    let terminal = TextTerminal(width: width, height: height)
    let ids = SequentialIDs()
    var state = AppState(status: status, now: Fixture.now, calendar: Fixture.utc, makeID: { ids.make() }, keymap: keymap)
    state.update(rows: rows, status: status)
    let session = UISession(terminal: terminal, state: state, clock: { Fixture.now })
    session.redraw()
    return (session, terminal)
}

/// Feeds keys one by one and collects every effect.
@MainActor
@discardableResult
func press(_ session: UISession, _ keys: Key...) -> [Effect] {
    keys.flatMap { session.handle($0) }
}

/// Feeds a string as character keys.
@MainActor
@discardableResult
func type(_ session: UISession, _ text: String) -> [Effect] {
    text.flatMap { session.handle(.char($0)) }
}

/// Compares the terminal's last frame with a golden screen; on mismatch writes the actual
/// screen to /tmp/todoui-golden/<name>.txt to ease review.
@MainActor
func expectScreen(
    _ terminal: TextTerminal, _ expected: String, _ name: String = #function,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let actual = terminal.text
    if actual != expected {
        let dir = URL(fileURLWithPath: "/tmp/todoui-golden")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let file = name.replacingOccurrences(of: "()", with: "") + "-\(sourceLocation.line).txt"
        try? actual.write(to: dir.appendingPathComponent(file), atomically: true, encoding: .utf8)
    }
    #expect(actual == expected, sourceLocation: sourceLocation)
}
