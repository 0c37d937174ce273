import Foundation
import Testing
import TodoPlanning

/// All-day due dates as floating calendar dates, and how instants written by earlier versions are read back.
@Suite("Due dates: floating days and earlier records")
struct DueDateTests {
    /// 00:00 on 2026-12-10 on the clock of a zone `offset` hours east of UTC, as an earlier version stored it.
    static func localMidnight(offsetHours offset: Double) -> Date {
        Date(timeIntervalSince1970: 1_796_860_800 - offset * 3_600)  // 1_796_860_800 is 2026-12-10T00:00:00Z
    }

    @Test func aDayIsTheSameInEveryZone() throws {
        let day = try #require(DueDate.day(year: 2026, month: 12, day: 10))
        #expect(day.date == Date(timeIntervalSince1970: 1_796_860_800) && day.allDay)
        for zone in ["Asia/Tokyo", "UTC", "America/New_York", "Pacific/Kiritimati", "Pacific/Pago_Pago", "Asia/Kolkata"] {
            let calendar = PlanningFixture.calendar(zone)
            #expect(day.text(in: calendar) == "2026-12-10", "\(zone)")
            #expect(DueDate.day(PlanningFixture.moment(2026, 12, 10, 23, 30, in: calendar), in: calendar) == day, "\(zone)")
            // It begins at that zone's midnight and is overdue from the next one.
            #expect(day.start(in: calendar) == PlanningFixture.day(2026, 12, 10, in: calendar), "\(zone)")
            #expect(day.deadline(in: calendar) == PlanningFixture.day(2026, 12, 11, in: calendar), "\(zone)")
        }
        #expect(DueDate.day(year: 2026, month: 2, day: 29) == nil && DueDate.day(year: 2026, month: 13, day: 1) == nil)
    }

    /// An all-day date's text is the day Foundation's calendar reads in it, in every year it can be written in:
    /// from 1583 it is worked out from the days since 1970, before then (Julian days) the calendar still answers.
    @Test func anAllDayTextIsTheCalendarsDay() {
        func expected(_ due: DueDate) -> String {
            let parts = DueDate.floating.dateComponents([.year, .month, .day], from: due.date)
            let pad = { (value: Int, width: Int) in String(repeating: "0", count: max(0, width - String(value).count)) + String(value) }
            return "\(parts.year!)-\(pad(parts.month!, 2))-\(pad(parts.day!, 2))"
        }
        var seconds: [Double] = [0, -1, 86_399.999, -12_212_553_600, -12_212_553_601, -12_219_292_800, -12_219_379_200, 253_402_214_400, 253_402_300_799]
        var seed: UInt64 = 0xD0E_DA7E
        for _ in 0..<3_000 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            seconds.append(-15_000_000_000 + Double(seed >> 20 % 268_402_300_000) + Double(seed & 0xFFF) / 4_096)
        }
        for second in seconds {
            let due = DueDate(Date(timeIntervalSince1970: second), allDay: true)
            #expect(due.text(in: PlanningFixture.utc) == expected(due), "\(second)")
        }
    }

    @Test func anEarlierVersionsLocalMidnightIsReadAsTheDayMeant() {
        // Every offset from UTC−10 to UTC+13:45 (whole, half and three-quarter hours) reads back as the day.
        let offsets: [Double] = [-10, -9.5, -9, -8, -7, -6, -5, -4, -3.5, -3, -2, -1, 0, 1, 2, 3, 3.5, 4, 4.5, 5, 5.5, 5.75, 6, 6.5, 7, 8, 8.75, 9, 9.5, 10, 10.5, 11, 12, 12.75, 13, 13.75]
        let calendar = PlanningFixture.utc
        for offset in offsets {
            let read = DueDate(Self.localMidnight(offsetHours: offset), allDay: true)
            #expect(read.text(in: calendar) == "2026-12-10", "UTC\(offset >= 0 ? "+" : "")\(offset)")
            #expect(read.date == Date(timeIntervalSince1970: 1_796_860_800), "normalised to 00:00 UTC")
        }
        // The two hours where neighbouring days' ranges overlap are split at 10:15 past UTC midnight: UTC−11 and
        // UTC+14 are read a day off (the documented cost), UTC−10 and UTC+13 are not.
        #expect(DueDate(Self.localMidnight(offsetHours: -11), allDay: true).text(in: calendar) == "2026-12-11")
        #expect(DueDate(Self.localMidnight(offsetHours: 14), allDay: true).text(in: calendar) == "2026-12-09")
        // A timed due date is an instant, untouched.
        let timed = DueDate(Self.localMidnight(offsetHours: 9), allDay: false)
        #expect(timed.date == Self.localMidnight(offsetHours: 9))
    }
}
