import Foundation

/// Why a text could not be read as iCalendar at all.
public struct ICalendarError: Error, Sendable, Hashable, CustomStringConvertible {
    /// One plain sentence saying what is wrong and what is accepted.
    public let description: String
}

/// Reading: every VTODO of one or more VCALENDARs; other components are skipped.
extension ICalendar {
    /// The todos of every VTODO in `text` (nested anywhere in one or several VCALENDARs), plus a warning for each
    /// VTODO skipped or property ignored. All-day and floating times are read in `calendar`'s time zone. Throws only
    /// when `text` is not iCalendar at all.
    public static func decode(_ text: String, calendar: Calendar) throws(ICalendarError) -> PortableImport {
        guard text.utf8.count <= PortableLimits.inputBytes else {
            throw ICalendarError(description: "The iCalendar text is larger than 512 MiB; split it into smaller files.")
        }
        let lines = contentLines(text)
        guard let first = lines.first else {
            throw ICalendarError(description: "The text is empty; an iCalendar file starts with BEGIN:VCALENDAR.")
        }
        guard first.name == "BEGIN", component(first) == "VCALENDAR" else {
            throw ICalendarError(
                description: "This is not an iCalendar file: line \(first.lineNumber) should be BEGIN:VCALENDAR.")
        }
        var reader = Reader(calendar: calendar)
        var stack: [String] = []
        var todoLines: [ContentLine]?
        var todoStart = 0
        var todoDepth = 0
        for line in lines {
            if line.name.isEmpty, todoLines == nil {
                reader.log.add("line \(line.lineNumber): \(PortableLimits.quoted(line.value)) is not a NAME:value line; it was ignored.")
            } else if line.name == "BEGIN" {
                let name = component(line)
                guard stack.count < 64 else {
                    throw ICalendarError(description: "Line \(line.lineNumber) nests components more than 64 deep; iCalendar files nest a few.")
                }
                if todoLines == nil, name == "VTODO" {
                    todoLines = []
                    todoStart = line.lineNumber
                    todoDepth = stack.count
                }
                stack.append(name)
            } else if line.name == "END" {
                let name = component(line)
                guard let open = stack.lastIndex(of: name) else {
                    reader.log.add("line \(line.lineNumber): END:\(name) has no matching BEGIN; it was ignored.")
                    continue
                }
                if open != stack.count - 1 {
                    reader.log.add("line \(line.lineNumber): END:\(name) closes components still open; they were closed too.")
                }
                stack.removeSubrange(open...)
                if let lines = todoLines, stack.count <= todoDepth {
                    todoLines = nil
                    if open == todoDepth, name == "VTODO" {
                        guard reader.todos.count < PortableLimits.todos else {
                            reader.log.add("The file holds more than \(PortableLimits.todos) todos; the rest were skipped.")
                            break
                        }
                        reader.read(lines, startingAt: todoStart)
                    } else {
                        reader.log.add("line \(todoStart): the VTODO starting here is not closed by END:VTODO; it was skipped.")
                    }
                }
            } else if todoLines != nil, stack.count == todoDepth + 1 {
                todoLines?.append(line)
            }
        }
        if todoLines != nil {
            reader.log.add("line \(todoStart): the VTODO starting here is not closed by END:VTODO; it was skipped.")
        }
        return PortableImport(todos: reader.todos, warnings: reader.log.all)
    }

    /// The component a BEGIN or END line names, uppercased.
    private static func component(_ line: ContentLine) -> String {
        line.value.trimmingCharacters(in: .whitespaces).uppercased()
    }

    /// The state of one decode: todos so far, warnings, UIDs seen, time zones looked up.
    private struct Reader {
        let calendar: Calendar
        var todos: [PortableTodo] = []
        var log = WarningLog()
        var seen: Set<String> = []
        var zones: [String: TimeZone?] = [:]

        init(calendar: Calendar) { self.calendar = calendar }

        /// Adds the todo of one VTODO's own properties, or a warning saying why it was skipped.
        mutating func read(_ lines: [ContentLine], startingAt start: Int) {
            var todo = PortableTodo(uid: "", title: "")
            var uid: String?
            var stamp: Date?
            var status: (value: String, line: Int)?
            var completedProperty = false
            var comments: [String] = []
            var summary = false
            for line in lines {
                switch line.name {
                case "UID":
                    if uid == nil { uid = unescape(line.value).trimmingCharacters(in: .whitespaces) }
                case "SUMMARY":
                    if !summary { todo.title = text(line) }
                    summary = true
                case "DESCRIPTION":
                    if todo.notes.isEmpty { todo.notes = text(line) }
                case "DUE":
                    guard let due = due(line) else { return }
                    todo.due = due
                case "RRULE":
                    if todo.repeatRule == nil { todo.repeatRule = cleanRule(line.value) }
                case "CATEGORIES":
                    for item in splitList(line.value) where todo.tags.count < PortableLimits.itemsPerTodo {
                        let tag = PortableLimits.field(unescape(item).trimmingCharacters(in: .whitespaces)).text
                        if !tag.isEmpty, !todo.tags.contains(tag) { todo.tags.append(tag) }
                    }
                case "PRIORITY":
                    if let value = Int(line.value.trimmingCharacters(in: .whitespaces)) {
                        todo.priority = value >= 1 && value <= 4 ? 3 : value == 5 ? 2 : value >= 6 && value <= 9 ? 1 : 0
                    } else {
                        log.add("line \(line.lineNumber): PRIORITY value \(PortableLimits.quoted(line.value)) is not a number 0-9; it was ignored.")
                    }
                case "STATUS":
                    status = (line.value.trimmingCharacters(in: .whitespaces).uppercased(), line.lineNumber)
                case "COMPLETED":
                    completedProperty = true
                    todo.completedAt = time(line)
                case "CREATED": todo.created = time(line)
                case "LAST-MODIFIED": todo.modified = time(line)
                case "DTSTAMP": stamp = time(line)
                case "COMMENT":
                    if comments.count < PortableLimits.itemsPerTodo { comments.append(text(line)) }
                case "X-CLOUDTODO-LIST":
                    let list = text(line)
                    if !list.isEmpty { todo.listName = list }
                case "X-CLOUDTODO-SERIES":
                    let series = text(line)
                    if !series.isEmpty { todo.series = series }
                case "X-CLOUDTODO-OCCURRENCE":
                    if let number = Int(line.value.trimmingCharacters(in: .whitespaces)), (1...1_000_000).contains(number) {
                        todo.occurrence = number
                    }
                case "DTSTART": todo.scheduled = time(line)
                case "X-CLOUDTODO-WAIT": todo.wait = time(line)
                case "X-CLOUDTODO-UNTIL": todo.until = time(line)
                case "X-CLOUDTODO-START": todo.start = time(line)
                case "RELATED-TO" where line.parameters["RELTYPE"]?.uppercased() == "DEPENDS-ON":
                    let blocker = unescape(line.value).trimmingCharacters(in: .whitespaces)
                    if !blocker.isEmpty, todo.depends.count < PortableLimits.itemsPerTodo, !todo.depends.contains(blocker) { todo.depends.append(blocker) }
                case "X-CLOUDTODO-REPEAT-FROM":
                    todo.repeatFromCompletion = line.value.trimmingCharacters(in: .whitespaces).uppercased() == "COMPLETION"
                case "RECURRENCE-ID":
                    log.add("line \(line.lineNumber): the VTODO from line \(start) changes one occurrence of a repeating todo; it was skipped.")
                    return
                case "":
                    log.add("line \(line.lineNumber): \(PortableLimits.quoted(line.value)) is not a NAME:value line; it was ignored.")
                default:
                    break
                }
            }
            if let status, status.value == "CANCELLED" {
                log.add("line \(status.line): the todo \(PortableLimits.quoted(todo.title)) was cancelled; it was read as completed.")
            }
            todo.isCompleted = completedProperty || status?.value == "COMPLETED" || status?.value == "CANCELLED"
            if !todo.isCompleted { todo.completedAt = nil }
            if todo.isCompleted { todo.start = nil }
            let noteTime = todo.created ?? stamp ?? todo.modified ?? Date(timeIntervalSince1970: 0)
            todo.annotations = comments.map { Annotation(wire: $0) ?? Annotation(entry: noteTime, text: $0) }
            if let uid, !uid.isEmpty, uid.utf8.count <= 1_000 {
                todo.uid = uid
            } else if let uid, !uid.isEmpty {
                todo.uid = StableID.uuid(uid)
                log.add("line \(start): the VTODO's UID is longer than 1,000 bytes; an identifier derived from it is used.")
            } else {
                todo.uid = StableID.uuid("ics\n" + lines.map(Self.canonical).joined(separator: "\n"))
            }
            guard seen.insert(todo.uid).inserted else {
                log.add("line \(start): a second VTODO with UID \(PortableLimits.quoted(todo.uid)); only the first was kept.")
                return
            }
            todos.append(todo)
        }

        /// The unescaped TEXT value of `line`, cut to the field limit (with a warning when cut).
        mutating func text(_ line: ContentLine) -> String {
            let field = PortableLimits.field(unescape(line.value))
            if field.cut {
                log.add("line \(line.lineNumber): \(line.name) is longer than \(PortableLimits.fieldCharacters) characters; the rest was dropped.")
            }
            return field.text
        }

        /// The due date of a DUE line, or nil (after a warning) when its value is not a date.
        mutating func due(_ line: ContentLine) -> DueDate? {
            let value = line.value.trimmingCharacters(in: .whitespaces)
            guard let parsed = CompactTime.parse(value) else {
                log.add(
                    "line \(line.lineNumber): DUE value \(PortableLimits.quoted(value)) is not a date (YYYYMMDD or YYYYMMDDTHHMMSS, "
                        + "optionally ending in Z); the todo was skipped.")
                return nil
            }
            if !parsed.hasTime || line.parameters["VALUE"]?.uppercased() == "DATE" {
                // A floating calendar date: the day written, whatever the zone of the file or the reader.
                return DueDate.day(year: parsed.year, month: parsed.month, day: parsed.day)
            }
            guard let moment = CompactTime.date(parsed, in: zone(line)) else { return nil }
            return DueDate(moment, allDay: false)
        }

        /// The moment of a CREATED, COMPLETED, LAST-MODIFIED or DTSTAMP line, or nil (after a warning).
        mutating func time(_ line: ContentLine) -> Date? {
            let value = line.value.trimmingCharacters(in: .whitespaces)
            guard let parsed = CompactTime.parse(value) else {
                log.add("line \(line.lineNumber): \(line.name) value \(PortableLimits.quoted(value)) is not a date and time; it was ignored.")
                return nil
            }
            return parsed.hasTime ? CompactTime.date(parsed, in: zone(line)) : CompactTime.startOfDay(parsed, in: calendar)
        }

        /// The time zone of `line`'s TZID (tried as given, then by its trailing `Area/City` parts), else the caller's.
        mutating func zone(_ line: ContentLine) -> TimeZone {
            guard let id = line.parameters["TZID"] else { return calendar.timeZone }
            if let known = zones[id] { return known ?? calendar.timeZone }
            var found = TimeZone(identifier: id)
            let parts = id.split(separator: "/").suffix(8)
            var index = parts.startIndex
            while found == nil, index < parts.endIndex {
                found = TimeZone(identifier: parts[index...].joined(separator: "/"))
                index += 1
            }
            if found == nil {
                log.add(
                    "line \(line.lineNumber): time zone \(PortableLimits.quoted(id)) is unknown; times in it were read in "
                        + "\(calendar.timeZone.identifier).")
            }
            if zones.count < 1_000 { zones[id] = found }
            return found ?? calendar.timeZone
        }

        /// A content line as text again, parameters sorted: the input for a derived UID.
        static func canonical(_ line: ContentLine) -> String {
            let parameters = line.parameters.sorted { $0.key < $1.key }.map { ";\($0.key)=\($0.value)" }.joined()
            return line.name + parameters + ":" + line.value
        }
    }
}
