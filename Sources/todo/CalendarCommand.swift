import ArgumentParser
import CloudModel
import CommandLineSupport
import Foundation
import TodoApp
import TodoPlanning
import TodoStore
import TodoSync

/// `todo calendar [MONTH] [--offline]`: the month as a grid, days with todos due marked with how many.
struct CalendarReport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calendar", abstract: "The month as a grid: days with open todos due marked with how many, today highlighted.",
        discussion: """
            MONTH is nothing (this month), YYYY-MM, a month name with an optional year (dec, december 2027; without a \
            year, this year's), this month, or a date in the due-date grammar (next month, +1m, eom, 2026-12-24): the \
            month it falls in. Weeks start on Monday unless config.toml's [view] week-start = "sunday". A day with open \
            todos due is marked *N (N todos), !N when it is past; today is [DD]; in colour on a terminal, plain text \
            under NO_COLOR or into a pipe. Your todos and those of lists shared with you; the context applies. \
            TODO_TODAY=YYYY-MM-DD draws it as of that day.
            """)

    @OptionGroup var device: DeviceOptionGroup

    @Flag(help: "Do not ask the cloud; read the cache.")
    var offline = false

    @Argument(help: "The month (see above); nothing for this one.")
    var month: [String] = []

    func validate() throws {
        _ = try grid(sundayFirst: false)
    }

    private func grid(sundayFirst: Bool) throws -> MonthGrid {
        let words = month.joined(separator: " ")
        guard let grid = MonthGrid.named(words, today: try reportToday(), calendar: planningCalendar, sundayFirst: sundayFirst) else {
            throw ValidationError("cannot read the month '\(words)'; use dec, december 2027, 2026-12, next month or a date")
        }
        return grid
    }

    func run() async throws {
        let today = try reportToday()
        try await device.withSession(orSignedOut: true, offline: offline) { session in
            let settings: DeviceSettings
            do { settings = try ConfigFile(session.options).settings() } catch { throw ValidationError("\(error)") }
            let grid = try grid(sundayFirst: settings.view.sundayFirst)
            if !offline { await session.engine.sync(.manualRefresh) }
            let context = try activeContext(session.options)
            var todos: [ListedTodo] = []
            for scope in [DatabaseScope.private, .shared] {
                todos += try await session.listedTodos(in: scope, includeTrashed: false).filter { !$0.item.isCompleted && !$0.item.isTrashed }
            }
            let dues = todos.filter { context?.filter.matches($0) != false }.compactMap(\.item.due)
            let page = CalendarPage(grid: grid, counts: grid.dueCounts(dues, in: planningCalendar), today: today, calendar: planningCalendar)
            for line in page.text(ink: .forStandardOutput()) { print(line) }
            if let context { printError(contextLine(context)) }
            if let line = signedOutLine(await session.engine.status()) { printError(line) }
        }
    }
}
