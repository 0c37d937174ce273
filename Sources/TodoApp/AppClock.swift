import Foundation
import TodoPlanning

/// The app's "now": this machine's clock, or, when `TODO_TODAY=YYYY-MM-DD` is set (as the reports take it), noon of
/// that day in the local zone moving on with the real clock from the app's start, so a screen can be drawn as of a
/// known day (golden screens of the Next and calendar views never depend on the wall clock).
public enum AppClock {
    /// The clock for `environment`; nil when `TODO_TODAY` is set but names no day.
    public static func clock(environment: [String: String] = ProcessInfo.processInfo.environment) -> (@Sendable () -> Date)? {
        guard let text = environment["TODO_TODAY"], !text.isEmpty else { return { Date() } }
        guard let noon = noon(of: text) else { return nil }
        let started = Date()
        return { noon.addingTimeInterval(Date().timeIntervalSince(started)) }
    }

    /// Noon of the day `text` (`YYYY-MM-DD`) names, in this machine's zone; nil when it names none.
    static func noon(of text: String) -> Date? {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, let day = DueDate.day(year: parts[0], month: parts[1], day: parts[2]) else { return nil }
        let (year, month, dayOfMonth) = day.day(in: DueDate.floating)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        return calendar.date(from: DateComponents(year: year, month: month, day: dayOfMonth, hour: 12))
    }
}
