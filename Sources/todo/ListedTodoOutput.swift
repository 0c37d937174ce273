import ArgumentParser
import CloudModel
import CommandLineSupport
import Foundation
import Terminal
import TodoApp
import TodoPlanning
import TodoStore
import TodoSync

/// How `todo list` and `todo next` print todos: one line each, or JSON for scripts.
extension ListedTodo {
    /// What urgency is computed from.
    var urgencyFacts: UrgencyFacts {
        ListingFacts(item).urgencyFacts(isBlocking: isBlocking, isBlocked: isBlocked, at: Date())
    }
}

/// A moment of `wait`, `scheduled`, `until` as the command line shows it: the day alone at local midnight, else with
/// its time.
func momentText(_ moment: Date) -> String {
    let calendar = planningCalendar
    let allDay = calendar.startOfDay(for: moment) == moment
    return formatDue(allDay ? DueDate.day(moment, in: calendar) : DueDate(moment, allDay: false))
}

/// How long a todo has been active, coarsely: `5m`, `3h 20m`, `2d 4h`.
func activeSpan(since start: Date, now: Date = Date()) -> String {
    let minutes = max(0, Int(now.timeIntervalSince(start) / 60))
    if minutes < 60 { return "\(minutes)m" }
    if minutes < 24 * 60 { return "\(minutes / 60)h \(minutes % 60)m" }
    return "\(minutes / (24 * 60))d \(minutes % (24 * 60) / 60)h"
}

/// Urgency now, with the coefficients of config.toml's `[urgency]` (Taskwarrior's where it sets none); a file that
/// cannot be read is the error it names.
func urgency(_ options: DeviceOptions, now: Date = Date()) throws -> Urgency {
    do {
        return Urgency(coefficients: try ConfigFile(options).settings().urgencyCoefficients, now: now, calendar: planningCalendar)
    } catch {
        throw ValidationError(error.description)
    }
}

/// One todo as `todo list` prints it: `[ ] ID  [List]  P2  due …  Title  +tags`.
func todoLine(_ todo: ListedTodo) -> String {
    let item = todo.item
    // Written into one string, each part after two spaces: `[String].joined` is the standard library's unspecialised
    // generic, 2,000 instructions a call, twice a line.
    var line = item.isCompleted ? "[x]" : "[ ]"
    line.reserveCapacity(64 + item.title.utf8.count)
    func add(_ part: String) {
        line += "  "
        line += part
    }
    add(item.shortID)
    if let list = todo.listTitle { add("[\(list)]") }
    if let start = item.start { add("(active \(activeSpan(since: start)))") }
    if item.priority > 0 { add("P\(item.priority)") }
    if let due = item.due { add("due \(formatDue(due))") }
    if let wait = item.wait, item.isWaiting(at: Date()) { add("(waiting until \(momentText(wait)))") }
    if let scheduled = item.scheduled { add("scheduled \(momentText(scheduled))") }
    if let until = item.until { add("until \(momentText(until))") }
    if todo.isBlocked { add("(blocked by \(todo.blockers.map(\.shortID).joined(separator: ",")))") }
    if item.isRepeating { add("(repeats)") }
    if item.isTrashed { add("(trashed)") }
    if item.hasPendingChanges { add("*") }
    add(item.title)
    for (index, tag) in item.tags.enumerated() {
        line += index == 0 ? "  +" : " +"
        line += tag
    }
    return line
}

/// Prints `todos` as the JSON of `list --json` and `next --json`, each with its urgency at `urgency.now`.
func printTodosJSON(_ todos: [ListedTodo], urgency: Urgency) throws {
    struct Note: Encodable {
        var entry: String
        var description: String
    }
    struct Row: Encodable {
        var id: String
        var scope: String
        var title: String
        var notes: String
        var isCompleted: Bool
        var dueDate: String?
        var allDay: Bool?
        var priority: Int
        var tags: [String]
        var `repeat`: String?
        var repeatFrom: String?
        var series: String?
        var occurrence: Int?
        var annotations: [Note]
        var isTrashed: Bool
        var pending: Bool
        var recordChangeTag: String?
        var createdBy: String?
        var modifiedAt: Int64?
        var list: String?
        var listID: String?
        var urgency: Double
        var wait: String?
        var scheduled: String?
        var until: String?
        var start: String?
        var depends: [String]?
        var project: String?
    }
    let times = ISO8601DateFormatter()
    times.timeZone = .current
    let rows = todos.map { todo in
        let item = todo.item
        return Row(
            id: item.key.recordName, scope: item.key.scope.rawValue, title: item.title, notes: item.notes,
            isCompleted: item.isCompleted, dueDate: item.due.map { $0.allDay ? formatDue($0) : times.string(from: $0.date) },
            allDay: item.due?.allDay, priority: item.priority, tags: item.tags, repeat: item.repeatRule,
            repeatFrom: item.isRepeating ? (item.repeatFromCompletion ? "completion" : "due") : nil,
            series: item.isRepeating || item.series != nil ? item.seriesName : nil, occurrence: item.isRepeating ? item.occurrence : nil,
            annotations: item.annotations.map { Note(entry: times.string(from: $0.entry), description: $0.text) },
            isTrashed: item.isTrashed, pending: item.hasPendingChanges, recordChangeTag: item.system.changeTag,
            createdBy: item.system.created?.userRecordName, modifiedAt: item.system.modified?.timestamp,
            list: todo.listTitle, listID: item.listName, urgency: (urgency.score(todo.urgencyFacts) * 100).rounded() / 100,
            wait: item.wait.map(times.string), scheduled: item.scheduled.map(times.string), until: item.until.map(times.string),
            start: item.start.map(times.string), depends: todo.blockers.isEmpty ? nil : todo.blockers.map(\.key.recordName), project: todo.listTitle)
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    // The encoder escapes C0 controls; DEL, C1, bidi controls and line separators are escaped after it.
    printTrusted(escapingTerminalControls(inJSON: String(decoding: try encoder.encode(rows), as: UTF8.self)))
}
