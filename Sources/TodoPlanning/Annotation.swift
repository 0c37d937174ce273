import Foundation

/// A timestamped note added to a todo, as Taskwarrior's annotations: never edited, only added or removed.
///
/// On the wire each is one element of the `annotations` STRING_LIST: the UTC time as `YYYY-MM-DDTHH:MM:SSZ`, a
/// space, then the text. Lists merge as sets, so annotations added on two devices both survive.
public struct Annotation: Sendable, Hashable, Comparable {
    /// When it was added (whole seconds).
    public var entry: Date
    /// What it says (one line or several).
    public var text: String

    /// An annotation made at `entry` (rounded down to the second, and kept within the years 1 to 9999).
    public init(entry: Date, text: String) {
        let seconds = entry.timeIntervalSince1970
        let bounded = seconds.isNaN ? 0 : min(max(seconds, Annotation.earliest), Annotation.latest)
        self.entry = Date(timeIntervalSince1970: bounded.rounded(.down))
        self.text = text
    }

    /// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z, in seconds since 1970: the times the wire form can write.
    static let earliest: Double = -62_135_596_800
    static let latest: Double = 253_402_300_799

    /// Reads one wire element; nil when it does not start with a UTC time and a space.
    public init?(wire: String) {
        let utf8 = wire.utf8
        guard utf8.count >= 21, let space = wire.firstIndex(of: " "), wire.distance(from: wire.startIndex, to: space) == 20,
            let seconds = Annotation.secondsSince1970(wire[..<space])
        else { return nil }
        self.entry = Date(timeIntervalSince1970: Double(seconds))
        self.text = String(wire[wire.index(after: space)...])
    }

    /// The wire element: `2026-05-01T09:30:00Z text`.
    public var wire: String {
        let seconds = entry.timeIntervalSince1970
        let bounded = seconds.isNaN ? 0 : min(max(seconds, Annotation.earliest), Annotation.latest)
        return Annotation.utcText(Int64(bounded)) + " " + text
    }

    /// Ordered by time, then text.
    public static func < (lhs: Annotation, rhs: Annotation) -> Bool {
        lhs.entry != rhs.entry ? lhs.entry < rhs.entry : lhs.text < rhs.text
    }

    static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// `YYYY-MM-DDTHH:MM:SSZ` of seconds since 1970.
    static func utcText(_ seconds: Int64) -> String {
        let parts = utc.dateComponents([.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: Double(seconds)))
        func two(_ value: Int?) -> String { let v = value ?? 0; return v < 10 ? "0\(v)" : "\(v)" }
        let year = String(parts.year ?? 0)
        return String(repeating: "0", count: max(0, 4 - year.count)) + year + "-" + two(parts.month) + "-" + two(parts.day) + "T"
            + two(parts.hour) + ":" + two(parts.minute) + ":" + two(parts.second) + "Z"
    }

    /// Seconds since 1970 of exactly `YYYY-MM-DDTHH:MM:SSZ` (ASCII digits, a real time), else nil.
    static func secondsSince1970(_ text: Substring) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count == 20, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54, bytes[13] == 0x3A, bytes[16] == 0x3A,
            bytes[19] == 0x5A
        else { return nil }
        func number(_ range: Range<Int>) -> Int? { ASCIIDigits.number(bytes, range) }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19), (1...12).contains(month), (1...31).contains(day), hour < 24,
            minute < 60, second < 61,
            let date = utc.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)),
            utc.component(.day, from: date) == day
        else { return nil }
        return Int64(date.timeIntervalSince1970)
    }
}
