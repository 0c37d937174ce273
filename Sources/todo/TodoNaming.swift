import ArgumentParser
import CloudModel
import CommandLineSupport
import Foundation
import TodoPlanning
import TodoStore
import TodoSync

// How a todo is named on the command line (docs/USAGE.md, "Naming a todo"): its short ID as `todo list` shows it,
// or a start of it at least four characters long, or its whole record name (`todo list --json`'s `id`). Never an end
// or a middle of a name; a name several todos start with is refused with them listed.

/// `--quiet` of the verbs that change something: no line saying what the change did.
struct QuietOption: ParsableArguments {
    @Flag(name: [.customShort("q"), .long], help: "Print no line saying what the change did (for scripts; errors still go to standard error).")
    var quiet = false

    /// Prints the line saying what a change did, unless `--quiet`.
    func say(_ line: String) {
        if !quiet { print(line) }
    }
}

/// Refuses, as a command-line mistake, a todo name that is too short to be one.
func checkTodoNames(_ ids: [String]) throws {
    for id in ids where !RecordNames.isNameable(id.lowercased()) {
        throw ValidationError(
            "'\(id)' is not a todo's ID: give the ID todo list shows, or at least its first \(RecordNames.shortestID) characters")
    }
}

/// A name that several todos start with: they are listed, one a line, with their titles.
struct AmbiguousTodoName: Error, CustomStringConvertible {
    var name: String
    var candidates: [TodoItem]
    var more: Bool

    /// One line a candidate: its short ID and title.
    var candidateLines: [String] { candidates.map { "  \($0.shortID)  \($0.title)" } }

    var description: String {
        "'\(name)' names \(more ? "more than \(candidates.count)" : String(candidates.count)) todos; give more of the ID of one:"
    }
}

extension DeviceOptionGroup {
    /// Opens the device, finds the todo a name gives, runs `body` on it, then sends and reports.
    ///
    /// A name this device has not seen yet (a new device, a todo added elsewhere since) is looked up again after
    /// fetching what changed, so `todo edit ID` works before any `todo list` has run. A trashed todo is refused
    /// unless `allowTrashed`.
    func withTodo(_ id: String, allowTrashed: Bool = false, _ body: (DeviceSession, TodoItem) async throws -> Void) async throws {
        try await withTodos(ids: [id], filter: nil, allowTrashed: allowTrashed, body)
    }

    /// Opens the device once, finds the todos the names give (or the filter matches), runs `body` on each, then sends
    /// and reports. A name this device has not seen yet is looked up again after fetching what changed.
    func withTodos(
        ids: [String], filter: TodoFilter?, allowTrashed: Bool = false, _ body: (DeviceSession, TodoItem) async throws -> Void,
        finish: (DeviceSession) async throws -> Void = { _ in }
    ) async throws {
        try await withSession { session in
            var items: [TodoItem] = []
            if let filter {
                await session.engine.sync(.manualRefresh)
                items = try await session.listedTodos(in: .private, includeTrashed: false).filter { filter.matches($0) }.map(\.item)
                guard !items.isEmpty else { throw DeviceCommandError("no todo matches the filter '\(filter.summary)'") }
            } else {
                var fetched = false
                for id in ids {
                    var found = try await session.todos(named: id)
                    if found.isEmpty && !fetched {
                        await session.engine.sync(.manualRefresh)
                        fetched = true
                        found = try await session.todos(named: id)
                    }
                    items.append(try Self.one(of: found, named: id, allowTrashed: allowTrashed))
                }
            }
            for item in items {
                try await body(session, item)
                // Another account may write a field of the wrong type: it is taken as absent, and the person acting hears so
                // (after the verb's own words, so a refusal still begins with "Error: ").
                if !item.unreadableFields.isEmpty {
                    printError("Note: \(quoted(item)) came with \(item.unreadableFields.joined(separator: ", ")) in a form this device cannot read; taken as absent and kept as it came")
                }
            }
            try await finish(session)
            try await sendAndReport(session)
        }
    }

    /// The one todo of `found`, or the error that says why there is not one.
    private static func one(of found: [TodoItem], named id: String, allowTrashed: Bool) throws -> TodoItem {
        guard let item = found.first else {
            throw DeviceCommandError("no todo has the ID '\(id)' (todo list --all shows every ID, done and trashed ones too)")
        }
        guard found.count == 1 else {
            let shown = Array(found.prefix(10))
            throw AmbiguousTodoName(name: id, candidates: shown, more: found.count > shown.count)
        }
        if item.isTrashed && !allowTrashed {
            throw DeviceCommandError("'\(item.title)' (\(item.shortID)) is in the trash: todo undo brings back what this device trashed last")
        }
        return item
    }
}

extension DeviceSession {
    /// The todos a command-line name gives: yours, those of lists shared with you, and your own public posts (another
    /// account's post can never be changed, so it is never named).
    func todos(named id: String) async throws -> [TodoItem] {
        let me = await engine.snapshot().userRecordName
        return try await engine.todos(matchingID: id).filter { item in
            guard item.key.scope == .public, let author = item.system.created?.userRecordName else { return true }
            return author == me
        }
    }
}

/// Words for a todo in a confirmation: its title, quoted.
func quoted(_ item: TodoItem) -> String { "'\(item.title)'" }

/// When a todo is due, in words for a confirmation: the weekday (and time) within the coming week, else the date.
func dueWords(_ due: DueDate, now: Date = Date()) -> String {
    let calendar = planningCalendar
    let today = calendar.startOfDay(for: now)
    let day = calendar.startOfDay(for: due.date)
    let days = calendar.dateComponents([.day], from: today, to: day).day ?? Int.max
    guard (0..<7).contains(days) else { return formatDue(due) }
    let formatter = DateFormatter()
    formatter.calendar = calendar
    formatter.timeZone = calendar.timeZone
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.dateFormat = due.allDay ? "EEE" : "EEE HH:mm"
    let words = days == 0 ? (due.allDay ? "today" : "today " + formatDue(due).suffix(5)) : formatter.string(from: due.date)
    return String(words)
}
