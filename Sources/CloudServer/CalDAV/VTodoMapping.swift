import CloudModel
import Foundation
import TodoPlanning
import TodoStore

/// A todo record as one VTODO and back, mapped as `todo export` / `todo import --format ics` map them (TodoPlanning's
/// reader and writer), with what the product does not model kept.
///
/// A client's VTODO is kept whole in the record's `icalendar` field (beside its time zones). Written back, each
/// modelled property whose field still holds what that VTODO said is given back exactly as the client wrote it
/// (unknown parameters and all); one changed since (on a device) is written from the field. Properties and
/// components the product does not model (VALARM, X- properties, ATTACH, RELATED-TO other than DEPENDS-ON, SEQUENCE)
/// and the client's UID always come back unchanged.
enum VTodoMapping {
    /// The record field holding the client's calendar object.
    static let keptField = "icalendar"
    /// The largest calendar object taken (`max-resource-size`): the record holds it, and records are at most 1 MB.
    static let maxObjectBytes = 256 * 1024

    /// Due dates, repeats and timestamps are read and written in UTC; all-day dates are floating days either way.
    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// The properties of each modelled field, with how to tell whether the field still says what the client wrote.
    private static let groups: [(names: Set<String>, same: @Sendable (PortableTodo, PortableTodo) -> Bool)] = [
        (["SUMMARY"], { $0.title == $1.title }),
        (["DESCRIPTION"], { $0.notes == $1.notes }),
        (["DUE"], { $0.due == $1.due }),
        (["RRULE"], { $0.repeatRule == $1.repeatRule }),
        (["CATEGORIES"], { $0.tags == $1.tags }),
        (["PRIORITY"], { $0.priority == $1.priority }),
        (["STATUS", "COMPLETED", "PERCENT-COMPLETE"], { $0.isCompleted == $1.isCompleted }),
        (["DTSTART"], { $0.scheduled == $1.scheduled }),
        (["COMMENT"], { $0.annotations == $1.annotations }),
        (["X-CLOUDTODO-REPEAT-FROM"], { $0.repeatFromCompletion == $1.repeatFromCompletion }),
        (["X-CLOUDTODO-SERIES"], { $0.series == $1.series }),
        (["X-CLOUDTODO-OCCURRENCE"], { $0.occurrence == $1.occurrence }),
        (["X-CLOUDTODO-WAIT"], { $0.wait == $1.wait }),
        (["X-CLOUDTODO-UNTIL"], { $0.until == $1.until }),
        (["X-CLOUDTODO-START"], { $0.start == $1.start }),
        (["RELATED-TO"], { $0.depends == $1.depends }),
    ]
    /// Written from the record every time: they describe the stored version.
    private static let alwaysWritten: Set<String> = ["DTSTAMP", "CREATED", "LAST-MODIFIED", "X-CLOUDTODO-LIST"]

    /// The portable todo a record stands for.
    static func portable(_ item: TodoItem) -> PortableTodo {
        var todo = PortableTodo(
            uid: item.key.recordName, title: item.title, notes: item.notes, tags: item.tags, due: item.due,
            repeatRule: item.repeatRule, repeatFromCompletion: item.repeatFromCompletion, priority: item.priority,
            isCompleted: item.isCompleted, completedAt: item.isCompleted ? item.system.modified?.date : nil,
            created: item.system.created?.date, modified: item.system.modified?.date, annotations: item.annotations)
        todo.series = item.series
        todo.occurrence = item.occurrence
        (todo.wait, todo.scheduled, todo.until, todo.start, todo.depends) = (item.wait, item.scheduled, item.until, item.start, item.depends)
        return todo
    }

    /// The one todo of a calendar object's text, as the reader reads it (PERCENT-COMPLETE 100 also meaning done).
    static func decode(_ text: String) throws -> PortableTodo? {
        let read = try ICalendar.decode(text, calendar: calendar)
        guard var todo = read.todos.first else { return nil }
        let object = ICalendarObject(text)
        if let properties = object.todos.first?.properties,
            properties.contains(where: { $0.name == "PERCENT-COMPLETE" && $0.value.trimmingCharacters(in: .whitespaces) == "100" })
        {
            todo.isCompleted = true
        }
        return todo
    }

    /// The calendar object of a todo record.
    static func calendarObject(_ item: TodoItem) -> String {
        let current = portable(item)
        let encoded = ICalendar.encode([current], calendar: calendar, includeList: false)
        guard case .string(let keptText)? = item.extraFields[keptField], let read = try? decode(keptText) else {
            // A todo no client wrote: the export's text as it is (the common case, so not taken apart again).
            guard current.isCompleted, let end = encoded.range(of: "END:VTODO\r\n") else { return encoded }
            return encoded.replacingCharacters(in: end.lowerBound..<end.lowerBound, with: "PERCENT-COMPLETE:100\r\n")
        }
        var mine = ICalendarObject(encoded).todos.first?.properties ?? []
        if current.isCompleted { mine.append(ICalendarLine("PERCENT-COMPLETE:100")) }
        var out = ""
        ICalendarFolding.append("BEGIN:VCALENDAR", to: &out)
        ICalendarFolding.append("VERSION:2.0", to: &out)
        ICalendarFolding.append("PRODID:" + ICalendar.productID, to: &out)
        let kept = ICalendarObject(keptText)
        let written = normalized(read, object: kept)
        let theirs = kept.todos.first?.properties ?? []
        for line in kept.timeZones { ICalendarFolding.append(line.raw, to: &out) }
        ICalendarFolding.append("BEGIN:VTODO", to: &out)
        var lines: [String] = []
        var uidWritten = false
        for line in theirs where line.name == "UID" && !uidWritten {
            lines.append(line.raw)
            uidWritten = true
        }
        if !uidWritten { lines += mine.filter { $0.name == "UID" }.map(\.raw) }
        lines += mine.filter { alwaysWritten.contains($0.name) && $0.name != "X-CLOUDTODO-LIST" }.map(\.raw)
        var modelled = Set(["UID"]).union(alwaysWritten)
        for group in groups {
            modelled.formUnion(group.names)
            let isDepends = group.names == ["RELATED-TO"]
            func member(_ line: ICalendarLine) -> Bool {
                group.names.contains(line.name) && (!isDepends || line.hasParameter("RELTYPE", "DEPENDS-ON"))
            }
            let source = group.same(written, current) ? theirs : mine
            lines += source.filter(member).map(\.raw)
        }
        // What the product does not model: RELATED-TO of other kinds counts among it.
        lines += theirs.filter { !modelled.contains($0.name) || ($0.name == "RELATED-TO" && !$0.hasParameter("RELTYPE", "DEPENDS-ON")) }.map(\.raw)
        for line in lines { ICalendarFolding.append(line, to: &out) }
        for line in kept.todos.first?.components ?? [] { ICalendarFolding.append(line.raw, to: &out) }
        ICalendarFolding.append("END:VTODO", to: &out)
        ICalendarFolding.append("END:VCALENDAR", to: &out)
        return out
    }

    /// What the record holds after `todo` was written to it: the fields as `apply` leaves them (tags, the rule,
    /// dependencies cleaned), for telling a field the client wrote from one changed since.
    static func normalized(_ todo: PortableTodo, object: ICalendarObject) -> PortableTodo {
        var scratch = TodoItem(key: .privateTodo(todo.uid), title: "")
        apply(todo, object: object, to: &scratch)
        return portable(scratch)
    }

    /// The text kept of a client's calendar object: its time zones and its VTODO, as one calendar.
    static func keptText(_ object: ICalendarObject) -> String {
        var out = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n"
        for line in object.timeZones { out += line.raw + "\r\n" }
        out += "BEGIN:VTODO\r\n"
        for line in object.todos.first?.properties ?? [] { out += line.raw + "\r\n" }
        for line in object.todos.first?.components ?? [] { out += line.raw + "\r\n" }
        out += "END:VTODO\r\nEND:VCALENDAR\r\n"
        return out
    }

    /// `item` (an existing record, or a new one) with the fields `todo` (read from a client's object) sets.
    /// Fields no client sees (wait, until, start, the series) keep their values when the object does not name them.
    static func apply(_ todo: PortableTodo, object: ICalendarObject, to item: inout TodoItem) {
        item.title = todo.title
        item.notes = todo.notes
        item.tags = TagName.valid(todo.tags)
        item.due = todo.due
        if let text = todo.repeatRule, let rule = try? RepeatRule(rrule: text) {
            item.repeatRule = rule.rrule
        } else {
            item.repeatRule = nil
        }
        let names = Set((object.todos.first?.properties ?? []).map(\.name))
        if names.contains("X-CLOUDTODO-REPEAT-FROM") { item.repeatFromCompletion = todo.repeatFromCompletion }
        item.priority = todo.priority
        item.isCompleted = todo.isCompleted
        item.scheduled = todo.scheduled
        item.annotations = todo.annotations
        item.depends = todo.depends.filter { !$0.isEmpty && $0.utf8.count <= 200 && $0 != item.key.recordName }
        if names.contains("X-CLOUDTODO-WAIT") { item.wait = todo.wait }
        if names.contains("X-CLOUDTODO-UNTIL") { item.until = todo.until }
        if names.contains("X-CLOUDTODO-START") { item.start = todo.start }
        if names.contains("X-CLOUDTODO-SERIES") { item.series = todo.series }
        if names.contains("X-CLOUDTODO-OCCURRENCE") { item.occurrence = todo.occurrence }
        if item.isCompleted { item.start = nil }
        item.isTrashed = false
        item.extraFields[keptField] = .string(keptText(object))
    }
}
