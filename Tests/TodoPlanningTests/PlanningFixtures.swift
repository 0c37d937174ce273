import Foundation
import TodoPlanning

/// A fixed clock and calendars for planning tests, so no result depends on the machine's zone or date.
enum PlanningFixture {
    /// The Gregorian calendar in UTC.
    static let utc = calendar("UTC")
    /// The Gregorian calendar in Europe/Berlin (clocks forward 2026-03-29 02:00, back 2026-10-25 03:00).
    static let berlin = calendar("Europe/Berlin")

    /// 2026-03-10 12:00:00 UTC, a Tuesday (13:00 in Berlin).
    static let now = moment(2026, 3, 10, 12, 0, in: utc)

    /// A Gregorian calendar in the named zone.
    static func calendar(_ zone: String) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone)!
        return calendar
    }

    /// The start of a day in `calendar`.
    static func day(_ year: Int, _ month: Int, _ day: Int, in calendar: Calendar = utc) -> Date {
        calendar.date(from: DateComponents(year: year, month: month, day: day))!
    }

    /// A wall-clock moment in `calendar`.
    static func moment(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, in calendar: Calendar = utc) -> Date {
        calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute))!
    }

    /// An all-day due date.
    static func allDay(_ year: Int, _ month: Int, _ day: Int, in calendar: Calendar = utc) -> DueDate {
        DueDate(self.day(year, month, day, in: calendar), allDay: true)
    }

    /// A timed due date at a wall-clock time in `calendar`.
    static func at(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, in calendar: Calendar = utc) -> DueDate {
        DueDate(moment(year, month, day, hour, minute, in: calendar), allDay: false)
    }
}

/// Seeded pseudo-random text for the parsers' crash tests: pieces of every form mixed with hostile characters.
struct PlanningNoise {
    /// The generator's state (a 64-bit linear congruential generator, so runs repeat exactly).
    var state: UInt64

    /// The next number below `bound`.
    mutating func below(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }

    /// A string of up to `pieces` pieces from `alphabet`.
    mutating func text(from alphabet: [String], pieces: Int) -> String {
        (0..<below(pieces + 1)).map { _ in alphabet[below(alphabet.count)] }.joined()
    }
}
