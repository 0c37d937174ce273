import Foundation

/// How our repeating series map to Taskwarrior's recurrence: a `status:recurring` template (`recur`, `mask`, `due` of
/// its first instance) and its instances (`parent` = the template's uuid, `imask` = the instance's index).
///
/// On export an open occurrence whose rule Taskwarrior can say becomes a template whose index 0 is that occurrence,
/// plus the occurrence as instance 0; the template carries the series' name and the occurrence's number
/// (`cloudtodo_series`, `cloudtodo_occurrence`), which Taskwarrior copies into every instance it makes, so instance
/// `k` is occurrence `number + k`, named as the series names it. The exact rule travels in `cloudtodo_repeat`
/// whatever Taskwarrior can say of it.
enum TaskwarriorSeries {
    /// The attribute carrying the exact RRULE of a repeating todo.
    static let repeatAttribute = "cloudtodo_repeat"

    /// The uuid of a series' template: the same on every export.
    static func templateUUID(series: String) -> String { StableID.uuid("cloudtodo-series\n" + series) }

    /// The record name of occurrence `number` of `series` (occurrence 1 is the series' own record), as the sync
    /// engine names the occurrences it makes.
    static func occurrenceName(series: String, number: Int) -> String { number <= 1 ? series : "\(series)-\(number)" }

    /// What a template tells its instances.
    struct Template {
        /// The rule (RRULE text), nil when neither `cloudtodo_repeat` nor `recur` gives one.
        var rule: String?
        /// The series' name (`cloudtodo_series`; the template's uuid when it was made in Taskwarrior).
        var series: String
        /// The occurrence number of instance 0.
        var firstOccurrence: Int
        /// Whether the template's due is a local midnight (an all-day series).
        var allDay: Bool
    }

    /// The rule of a task: `cloudtodo_repeat` while `recur` (when present) still says the same period, else `recur`'s.
    static func rule(of object: [String: Any], due: DueDate?, calendar: Calendar) -> String? {
        let recur = (object["recur"] as? String).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        if let exact = object[repeatAttribute] as? String, let clean = ICalendar.cleanRule(exact), (try? RepeatRule(rrule: clean)) != nil {
            guard let recur else { return clean }
            let word = TaskwarriorRecur.word(from: clean, due: due, calendar: calendar)
            if word == recur || TaskwarriorRecur.rule(from: recur) == word.flatMap(TaskwarriorRecur.rule(from:)) { return clean }
        }
        return recur.flatMap(TaskwarriorRecur.rule(from:))
    }

    /// The index of an instance (`imask`, written as a number or a string).
    static func index(_ value: Any?) -> Int? {
        let number: Double? = (value as? Double) ?? (value as? String).flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard let number, number.isFinite, number >= 0, number < 1_000_000 else { return nil }
        return Int(number)
    }
}
