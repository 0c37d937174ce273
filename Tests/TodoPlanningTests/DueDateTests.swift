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

    /// A list's due dates are ordered without the device's zone unless all-day and timed dates are both in it; where
    /// the zone is asked, the moments are `localMoment`'s.
    @Test func aListOfOneKindIsOrderedWithoutTheZone() {
        var asked = 0
        let counting: (Date) -> Int = { date in
            asked += 1
            return TimeZone(identifier: "Asia/Tokyo")!.secondsFromGMT(for: date)
        }
        let days: [DueDate?] = [PlanningFixture.allDay(2026, 12, 10), nil, PlanningFixture.allDay(2025, 3, 30)]
        let moments: [DueDate?] = [PlanningFixture.at(2026, 12, 10, 9, 30), PlanningFixture.at(2026, 12, 9, 23, 0), nil]
        #expect(DueDate.orderingMoments(days, offset: counting) == days.map { $0?.date.timeIntervalSince1970 })
        #expect(DueDate.orderingMoments(moments, offset: counting) == moments.map { $0?.date.timeIntervalSince1970 })
        #expect(DueDate.orderingMoments([nil, nil], offset: counting) == [nil, nil])
        #expect(asked == 0)
        // Mixed: each all-day date's start in the zone, each timed date as it is.
        let mixed = days + moments
        let tokyo = mixed.map { due in due.map { $0.allDay ? $0.date.timeIntervalSince1970 - 9 * 3_600 : $0.date.timeIntervalSince1970 } }
        #expect(DueDate.orderingMoments(mixed, offset: counting) == tokyo)
        #expect(asked == 2, "once for each all-day date")
        #expect(DueDate.orderingMoments(mixed) == mixed.map { $0?.localMoment })
    }

    /// Ordered by day alone, all-day dates keep the order their starts have in every zone, across its changes of
    /// offset (daylight saving, Samoa's move across the date line); only where two starts fall at the same moment (a
    /// day a zone skipped) is the order the days'.
    @Test func allDayDatesKeepTheirStartsOrderInEveryZone() {
        var days: [DueDate] = []
        var noise = PlanningNoise(state: 0x5A_0A)
        for _ in 0..<200 {
            days.append(DueDate(Date(timeIntervalSince1970: Double(noise.below(40_000) - 20_000) * 86_400), allDay: true))
        }
        for day in 26...31 { days.append(PlanningFixture.allDay(2011, 12, day)) }
        for day in 29...31 { days.append(PlanningFixture.allDay(1994, 12, day)) }
        days.append(PlanningFixture.allDay(1995, 1, 1))
        let moments = DueDate.orderingMoments(days).map { $0! }
        for name in ["Pacific/Apia", "Pacific/Kiritimati", "America/New_York", "Asia/Tokyo", "Australia/Lord_Howe", "UTC"] {
            let zone = TimeZone(identifier: name)!
            let starts = days.map { $0.date.timeIntervalSince1970 - Double(zone.secondsFromGMT(for: $0.date)) }
            for a in days.indices {
                for b in days.indices where starts[a] < starts[b] {
                    #expect(moments[a] < moments[b], "\(name): \(days[a]) before \(days[b])")
                }
            }
        }
        // 2011-12-30 never began in Samoa: its start is the 31st's, and here it comes first.
        let apia = TimeZone(identifier: "Pacific/Apia")!
        let (thirtieth, thirtyFirst) = (PlanningFixture.allDay(2011, 12, 30), PlanningFixture.allDay(2011, 12, 31))
        #expect(thirtieth.date.timeIntervalSince1970 - Double(apia.secondsFromGMT(for: thirtieth.date))
            == thirtyFirst.date.timeIntervalSince1970 - Double(apia.secondsFromGMT(for: thirtyFirst.date)))
        #expect(DueDate.orderingMoments([thirtieth, thirtyFirst]).map { $0! } == [thirtieth.date.timeIntervalSince1970, thirtyFirst.date.timeIntervalSince1970])
    }
}
