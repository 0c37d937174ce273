import ArgumentParser
import Foundation
import TodoPlanning

/// "Today" for the reports (`calendar`, `burndown`): this machine's clock, or the day `TODO_TODAY` names
/// (`YYYY-MM-DD`, noon of it in the local zone), so a report can be drawn as of another day and tests never depend on
/// the wall clock.
func reportToday(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Date {
    guard let text = environment["TODO_TODAY"], !text.isEmpty else { return Date() }
    let parts = text.split(separator: "-").compactMap { Int($0) }
    guard parts.count == 3, let day = DueDate.day(year: parts[0], month: parts[1], day: parts[2]) else {
        throw ValidationError("TODO_TODAY must be a day as YYYY-MM-DD, not '\(text)'")
    }
    let (year, month, dayOfMonth) = day.day(in: DueDate.floating)
    guard let noon = planningCalendar.date(from: DateComponents(year: year, month: month, day: dayOfMonth, hour: 12)) else {
        throw ValidationError("TODO_TODAY names a day this calendar does not have: '\(text)'")
    }
    return noon
}
