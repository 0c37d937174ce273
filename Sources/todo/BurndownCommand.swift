import ArgumentParser
import CloudModel
import CommandLineSupport
import Foundation
import TodoApp
import TodoPlanning
import TodoStore
import TodoSync

/// `todo burndown [--weeks N] [--offline]`: pending and done per day as a bar chart.
struct BurndownReport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "burndown", abstract: "Pending and done todos per day of the last weeks as a bar chart (Taskwarrior's burndown.daily).",
        discussion: """
            Each day's bar stacks the todos done since the chart's first day (X) under those started and still open \
            at the day's end (=, todo start) and those open and not started (+), read from when each todo was made, \
            started and done (the cache's record times). Your todos \
            and those of lists shared with you, never trashed ones; the context (todo context) applies. Colour on a \
            terminal, plain text under NO_COLOR or into a pipe. TODO_TODAY=YYYY-MM-DD draws it as of that day.
            """)

    @OptionGroup var device: DeviceOptionGroup

    @Option(help: "How many weeks, ending today (1-10).")
    var weeks = 2

    @Flag(help: "Do not ask the cloud; chart the cache.")
    var offline = false

    func validate() throws {
        guard (1...10).contains(weeks) else { throw ValidationError("--weeks must be from 1 to 10") }
        _ = try reportToday()
    }

    func run() async throws {
        let today = try reportToday()
        try await device.withFreshSession(orSignedOut: true, offline: offline) { session in
            let context = try activeContext(session.options)
            var todos: [ListedTodo] = []
            for scope in [DatabaseScope.private, .shared] {
                todos += try await session.listedTodos(in: scope, includeTrashed: false).filter { !$0.item.isTrashed }
            }
            let charted = todos.filter { context?.filter.matches($0) != false }.map { todo in
                // A done todo's last change is when it was done: the cache keeps no separate completion time.
                (created: todo.item.system.created?.date, completed: todo.item.isCompleted ? todo.item.system.modified?.date : nil, started: todo.item.start)
            }
            let chart = Burndown(charted, dayCount: weeks * 7, today: today, calendar: planningCalendar)
            for line in chart.text(width: terminalColumns(), ink: .forStandardOutput()) { print(line) }
            if let context { printError(contextLine(context)) }
            if let line = signedOutLine(await session.engine.status()) { printError(line) }
        }
    }
}
