import ArgumentParser
import Foundation
import TodoPlanning
import TodoSync

/// The flags of Taskwarrior's other dates, on `todo add` and `todo edit`: `--wait`, `--scheduled` and `--until`, read
/// with the due-date grammar; `none` clears one. A date without a time means the start of that day here.
struct DateFieldOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp("Hide it from list, next and the app's views until then (none: show it again).", valueName: "when"))
    var wait: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Not to be started before then: ranked up from then (none: clear).", valueName: "when"))
    var scheduled: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Goes to the trash by itself once past (none: never).", valueName: "when"))
    var until: String?

    func validate() throws {
        for (flag, text) in [("--wait", wait), ("--scheduled", scheduled), ("--until", until)] {
            guard let text else { continue }
            guard !text.allSatisfy(\.isWhitespace) else { throw ValidationError("\(flag) is empty: give a date (\(DueDateGrammar.acceptedShort)), or none to clear it") }
            do { _ = try parseDueDate(text) } catch { throw ValidationError(error.description) }
        }
    }

    /// Whether none of these flags was given.
    var isEmpty: Bool { wait == nil && scheduled == nil && until == nil }

    /// `text` as a moment (`.some(nil)`: `none`), nil when not given; a day is its start in this machine's zone.
    static func moment(_ text: String?) throws -> Date?? {
        guard let text else { return nil }
        guard let date = try parseDueDate(text) else { return .some(nil) }
        return .some(date.allDay ? date.start(in: planningCalendar) : date.date)
    }

    /// Puts these dates into `edit`.
    func apply(to edit: inout TodoEdit) throws {
        edit.wait = try Self.moment(wait)
        edit.scheduled = try Self.moment(scheduled)
        edit.until = try Self.moment(until)
    }
}
