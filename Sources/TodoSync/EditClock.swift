import Foundation
import TodoStore

/// How far the cloud's clock is ahead of this device's (ms), known within an interval; a pure value.
///
/// Each reading of the cloud's time taken between two device times narrows the interval; a reading that no longer
/// fits (the device's clock was set) starts it again. Older knowledge widens by 100 ppm of its age, for drift.
public struct CloudClockOffset: Sendable, Hashable {
    /// The interval of possible offsets (cloud time minus device time, ms).
    public var low: Int64
    public var high: Int64
    /// Device time of the last reading (ms).
    public var measuredAt: Int64

    /// An offset known within `low...high`, measured at device time `measuredAt`.
    public init(low: Int64, high: Int64, measuredAt: Int64) {
        self.low = min(low, high)
        self.high = max(low, high)
        self.measuredAt = measuredAt
    }

    /// A reading: the cloud's time was `cloud` (up to `cloud + resolution`) at some moment between the device times
    /// `sent` and `received`.
    public static func reading(cloud: Int64, resolution: Int64 = 0, sent: Int64, received: Int64) -> CloudClockOffset {
        CloudClockOffset(low: cloud - max(sent, received), high: cloud + max(0, resolution) - min(sent, received), measuredAt: max(sent, received))
    }

    /// A reading from an HTTP `Date` header (to the second) received between `sent` and `received`; nil when unreadable.
    public static func readingFromDateHeader(_ header: String?, sent: Int64, received: Int64) -> CloudClockOffset? {
        HTTPDate.milliseconds(header).map { reading(cloud: $0, resolution: 999, sent: sent, received: received) }
    }

    /// What the device adds to its own time: none while its clock agrees with the cloud's within what was measured,
    /// else the middle of the interval.
    ///
    /// A device whose clock is right keeps its own time to the millisecond (the middle of a `Date` header's second would
    /// misorder edits made within half a second on two devices whose clocks agree); a clock shown to be off takes the
    /// best guess, at most half the interval from the truth.
    public var estimate: Int64 { low <= 0 && 0 <= high ? 0 : low + (high - low) / 2 }

    /// How uncertain the estimate is (half the interval, ms).
    public var uncertainty: Int64 { (high - low) / 2 }

    /// Narrows the interval with a newer reading, or starts again from it when they do not overlap.
    public mutating func refine(with reading: CloudClockOffset) {
        let drift = max(0, reading.measuredAt - measuredAt) / 10_000
        let low = max(self.low - drift, reading.low)
        let high = min(self.high + drift, reading.high)
        self = low <= high ? CloudClockOffset(low: low, high: high, measuredAt: reading.measuredAt) : reading
    }

    /// Kept form: `low,high,measuredAt`.
    public var wire: String { "\(low),\(high),\(measuredAt)" }

    /// Reads the kept form; nil when unreadable.
    public init?(wire: String?) {
        let parts = (wire ?? "").split(separator: ",").compactMap { Int64($0) }
        guard parts.count == 3, parts[0] <= parts[1] else { return nil }
        self.init(low: parts[0], high: parts[1], measuredAt: parts[2])
    }
}

/// The clock that stamps edits: a hybrid logical clock over the device's time corrected to the cloud's; a pure value.
///
/// A stamp is never earlier than the last stamp made or time seen here, so an edit made after seeing another orders
/// after it even when this device's clock is behind; the counter orders edits within one millisecond.
public struct HybridClock: Sendable, Hashable {
    /// The cloud's device ID of this device, the tie-breaker of its stamps.
    public let deviceID: String
    /// The last time stamped or seen (ms, cloud time) and its counter.
    public private(set) var time: Int64
    public private(set) var counter: Int64

    /// A clock for a device that last stamped or saw `time` (0: nothing).
    public init(deviceID: String, time: Int64 = 0, counter: Int64 = 0) {
        self.deviceID = deviceID
        self.time = time
        self.counter = counter
    }

    /// The stamp of an edit made when the corrected device time reads `physical`.
    public mutating func tick(physical: Int64) -> EditStamp {
        if physical > time {
            time = physical
            counter = 0
        } else {
            counter += 1
        }
        return EditStamp(timestamp: time, counter: counter, deviceID: deviceID)
    }

    /// Notes a stamp (or a cloud time, counter 0) seen in the cloud, so the next edit here orders after it.
    public mutating func observe(_ time: Int64, counter: Int64 = 0) {
        if time > self.time || (time == self.time && counter > self.counter) {
            self.time = time
            self.counter = counter
        }
    }

    /// Kept form: `time,counter`.
    public var wire: String { "\(time),\(counter)" }

    /// A clock restored from its kept form (a fresh one when unreadable).
    public init(deviceID: String, wire: String?) {
        let parts = (wire ?? "").split(separator: ",").compactMap { Int64($0) }
        self.init(deviceID: deviceID, time: parts.count == 2 ? parts[0] : 0, counter: parts.count == 2 ? max(0, parts[1]) : 0)
    }
}

/// Reads the time in an HTTP `Date` header (RFC 9110's IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`), as ms since
/// 1970; by hand, since a `DateFormatter` would load the ICU data into every process that syncs.
enum HTTPDate {
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func milliseconds(_ header: String?) -> Int64? {
        guard let header else { return nil }
        let parts = header.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT", let day = Int64(parts[1]), let monthIndex = months.firstIndex(of: String(parts[2])),
            let year = Int64(parts[3]), (1...31).contains(day), (1970...9999).contains(year)
        else { return nil }
        let time = parts[4].split(separator: ":").compactMap { Int64($0) }
        guard time.count == 3, (0...23).contains(time[0]), (0...59).contains(time[1]), (0...60).contains(time[2]) else { return nil }
        // Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
        let month = Int64(monthIndex + 1)
        let y = month <= 2 ? year - 1 : year
        let era = y / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return ((days * 24 + time[0]) * 60 + time[1]) * 60_000 + time[2] * 1_000
    }
}
