import ArgumentParser
import Foundation
import TodoPlanning
import TodoSync

/// Reads a due date with the grammar the app's edit form uses (`DueDateGrammar`); nil for `none`.
func parseDueDate(_ text: String) throws(DueDateError) -> DueDate? {
    try DueDateGrammar(now: Date(), calendar: planningCalendar).parse(text)
}

/// The calendar the command line reads and shows dates in: Gregorian, in this machine's time zone.
var planningCalendar: Calendar {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = .current
    return calendar
}

/// The planning flags `todo add` and `todo edit` share: tags, the due date and the repeat.
struct PlanningOptions: ParsableArguments {
    @Option(name: .customLong("tag"), help: "Add a tag (one word; repeat the flag for several).", completion: CacheCompletion.tags)
    var tags: [String] = []

    @Option(name: .customLong("untag"), help: "Remove a tag (repeat the flag for several).", completion: CacheCompletion.tags)
    var untags: [String] = []

    // Unconditional: `--due -3d` is a date (3 days ago), not an unknown flag.
    @Option(parsing: .unconditional, help: ArgumentHelp("Due date, optionally with a time: \(DueDateGrammar.accepted).", valueName: "when"))
    var due: String?

    @Option(
        name: .customLong("repeat"),
        help: ArgumentHelp(
            "Repeat: daily, weekly, monthly, yearly, weekdays, \"every 2 weeks\", \"every mon,thu\" or an RRULE; add \"from completion\" to count from when it is done.",
            valueName: "rule"))
    var repeating: String?

    @Flag(name: .customLong("no-repeat"), help: "Stop repeating (the series ends with this occurrence).")
    var noRepeat = false

    func validate() throws {
        for tag in tags + untags {
            do { _ = try TagName.read(tag) } catch { throw ValidationError(error.description) }
        }
        if let due {
            // Nothing is not "no date": `none` clears one, so an empty value (an unset shell variable) is refused.
            guard !due.allSatisfy(\.isWhitespace) else { throw ValidationError("--due is empty: give a date (\(DueDateGrammar.acceptedShort)), or none to clear it") }
            do { _ = try parseDueDate(due) } catch { throw ValidationError(error.description) }
        }
        if repeating != nil && noRepeat { throw ValidationError("--repeat and --no-repeat cannot be used together") }
        if let repeating {
            do { _ = try RepeatRule(words: repeating) } catch { throw ValidationError(String(describing: error)) }
        }
    }

    /// Whether any planning flag was given.
    var isEmpty: Bool { tags.isEmpty && untags.isEmpty && due == nil && repeating == nil && !noRepeat }

    /// The tags to add, as the rule names them.
    var addTags: [String] { tags.compactMap { try? TagName.read($0) } }

    /// The due date given (`.some(nil)`: `none`), nil when not given.
    func dueDate() throws -> DueDate?? {
        guard let due else { return nil }
        return .some(try parseDueDate(due))
    }

    /// The repeat given (`.some(nil)`: `--no-repeat`), nil when not given.
    func repeatSetting() throws -> RepeatSetting?? {
        if noRepeat { return .some(nil) }
        guard let repeating else { return nil }
        let rule = try RepeatRule(words: repeating)
        return .some(RepeatSetting(rrule: rule.rrule, fromCompletion: rule.from == .completion))
    }

    /// The edit these flags make, beside the other fields given.
    func edit(title: String? = nil, notes: String? = nil, priority: Int? = nil) throws -> TodoEdit {
        TodoEdit(
            title: title, notes: notes, due: try dueDate(), priority: priority, addTags: addTags,
            removeTags: untags.compactMap { try? TagName.read($0) }, repeatRule: try repeatSetting())
    }
}
