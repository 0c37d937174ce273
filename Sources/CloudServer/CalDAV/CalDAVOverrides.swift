import Foundation

/// RECURRENCE-ID overrides: a client's change to one occurrence of a repeating todo, sent as a second VTODO of the
/// same UID beside the series (Thunderbird does this when an occurrence is ticked off; Reminders and Tasks.org
/// move the series' own DUE instead).
///
/// A todo here is one occurrence at a time, the series' current one (its DUE, else its DTSTART), and the next is
/// made when it is completed. So an override of the current occurrence is applied to the todo: its properties take
/// the place of the series' (the rule stays), and completing it makes the next occurrence as on a device. An override
/// of any other occurrence has nothing to apply to: it is refused (`403`, nothing written), as is an override sent
/// without its series.
enum CalDAVOverrides {
    /// Properties of an override that never replace the series' own.
    private static let identity: Set<String> = ["UID", "RECURRENCE-ID", "RRULE", "RDATE", "EXDATE", "DTSTAMP", "SEQUENCE"]

    /// `text` with its overrides applied to the series (unchanged when there are none).
    static func resolve(_ text: String, _ object: ICalendarObject) throws -> (text: String, object: ICalendarObject) {
        let overrides = object.todos.filter { $0.properties.contains { $0.name == "RECURRENCE-ID" } }
        guard !overrides.isEmpty else { return (text, object) }
        let series = object.todos.filter { !$0.properties.contains { $0.name == "RECURRENCE-ID" } }
        guard series.count == 1, let master = series.first else {
            throw CalDAVFailure(
                403, "an override (RECURRENCE-ID) is taken only beside its repeating todo, in the same resource",
                condition: "<c:valid-calendar-object-resource/>")
        }
        let uid = value("UID", master)
        guard overrides.allSatisfy({ value("UID", $0) == uid }) else {
            throw CalDAVFailure(403, "every VTODO of a resource has the same UID", condition: "<c:valid-calendar-object-resource/>")
        }
        let current = moment(value("DUE", master) ?? value("DTSTART", master))
        var merged = master
        for override in overrides {
            guard let current, moment(value("RECURRENCE-ID", override)) == current else {
                throw CalDAVFailure(
                    403,
                    "this cloud keeps one occurrence of a repeating todo at a time, the current one (its DUE): an override of "
                        + "another occurrence has nothing to apply to; change the current occurrence or the whole series",
                    condition: "<c:valid-calendar-object-resource/>")
            }
            let replaced = Set(override.properties.map(\.name)).subtracting(identity)
            merged.properties = merged.properties.filter { !replaced.contains($0.name) }
                + override.properties.filter { replaced.contains($0.name) }
            merged.components += override.components
        }
        var out = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n"
        for line in object.timeZones { out += line.raw + "\r\n" }
        out += "BEGIN:VTODO\r\n"
        for line in merged.properties { out += line.raw + "\r\n" }
        for line in merged.components { out += line.raw + "\r\n" }
        out += "END:VTODO\r\nEND:VCALENDAR\r\n"
        return (out, ICalendarObject(out))
    }

    private static func value(_ name: String, _ todo: ICalendarObject.Todo) -> String? {
        todo.properties.first { $0.name == name }?.value.trimmingCharacters(in: .whitespaces)
    }

    /// A date or date-time value reduced to its digits (and a trailing Z), so `20261201`, `20261201T000000` and the
    /// same with `VALUE=DATE` compare by the moment they name in the series' own terms.
    private static func moment(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        let digits = value.uppercased().filter { $0.isNumber || $0 == "T" || $0 == "Z" }
        return digits.hasSuffix("T000000") ? String(digits.dropLast(7)) : digits
    }
}
