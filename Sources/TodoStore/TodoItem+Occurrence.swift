import CloudModel
import Foundation
import TodoPlanning

// The occurrences of a repeating todo, shared by the device (completing or skipping one) and the cloud's CalDAV
// front (a phone completing one): both make the same next record under the same name.
extension TodoItem {
    /// The record name of a series' occurrence: the series' name, `-`, its number (occurrence 1 is the series' own record).
    public static func occurrenceName(series: String, number: Int) -> String { "\(series)-\(number)" }

    /// Where the occurrence after this one lives; nil when it is the last occurrence a series can have
    /// (`occurrenceRange`: its number came from a record, which another account may have written).
    public var nextOccurrenceKey: RecordKey? {
        let (number, overflow) = occurrence.addingReportingOverflow(1)
        guard !overflow, Self.occurrenceRange.contains(Int64(number)) else { return nil }
        return RecordKey(
            scope: key.scope, zoneName: key.zoneName, zoneOwner: key.zoneOwner,
            recordName: Self.occurrenceName(series: seriesName, number: number))
    }

    /// The occurrence after this one, completed at `now`: the same todo due at the rule's next date, or nil when the
    /// rule ends (COUNT, UNTIL) or cannot be read.
    public func nextOccurrence(completedAt now: Date, calendar: Calendar) -> TodoItem? {
        guard let key = nextOccurrenceKey, let text = repeatRule, var rule = try? RepeatRule(rrule: text) else { return nil }
        rule.from = repeatFromCompletion ? .completion : .due
        let current = due ?? DueDate.day(now, in: calendar)
        guard let nextDue = rule.next(after: current, completedAt: now, occurrence: occurrence, calendar: calendar) else { return nil }
        var next = TodoItem(key: key, recordType: recordType, title: title)
        next.apply(fields: fields)
        next.parent = parent
        next.sharePermission = sharePermission
        next.isCompleted = false
        next.isTrashed = false
        next.annotations = []
        // Dates of this occurrence do not carry over (they would hide or expire the next one for the wrong day).
        (next.wait, next.scheduled, next.until, next.start) = (nil, nil, nil, nil)
        next.due = nextDue
        next.series = seriesName
        next.occurrence = occurrence + 1  // within `occurrenceRange`: `nextOccurrenceKey` said so
        next.editStamps = nil
        next.lostEdits = nil
        return next
    }
}
