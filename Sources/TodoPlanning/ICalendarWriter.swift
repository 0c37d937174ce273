import Foundation

/// Writing: one VCALENDAR with a VTODO per todo.
extension ICalendar {
    /// The PRODID our files carry.
    public static let productID = "-//CloudTodo//todo//EN"

    /// A VCALENDAR (CRLF line ends, folded at 75 octets) with one VTODO per todo; all-day due dates as the day in
    /// `calendar`, other times in UTC; the list as `X-CLOUDTODO-LIST` when `includeList`. DTSTAMP is the todo's
    /// last change (else its creation, else `now`).
    public static func encode(_ todos: [PortableTodo], calendar: Calendar, includeList: Bool, now: Date = Date()) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(80 + todos.count * 400)
        appendFolded("BEGIN:VCALENDAR", to: &out)
        appendFolded("VERSION:2.0", to: &out)
        appendFolded("PRODID:" + productID, to: &out)
        for todo in todos { append(todo, to: &out, calendar: calendar, includeList: includeList, now: now) }
        appendFolded("END:VCALENDAR", to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// The iCalendar PRIORITY of our 0-3 priority (3 high → 1, 2 → 5, 1 low → 9), nil for none.
    static func icalPriority(_ priority: Int) -> Int? {
        switch priority {
        case ...0: return nil
        case 1: return 9
        case 2: return 5
        default: return 1
        }
    }

    /// `rule` without control characters or surrounding spaces, nil when nothing is left.
    static func cleanRule(_ rule: String?) -> String? {
        guard let rule else { return nil }
        var kept = String.UnicodeScalarView()
        for scalar in rule.unicodeScalars.prefix(PortableLimits.fieldCharacters) where scalar.value >= 0x20 && scalar.value != 0x7F {
            kept.append(scalar)
        }
        let trimmed = String(kept).trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty ? nil : trimmed
    }

    private static func append(_ todo: PortableTodo, to out: inout [UInt8], calendar: Calendar, includeList: Bool, now: Date) {
        func property(_ name: String, _ value: String) { appendFolded(name + ":" + value, to: &out) }
        func time(_ name: String, _ date: Date?) {
            if let date, let text = CompactTime.utcText(date) { property(name, text) }
        }
        property("BEGIN", "VTODO")
        property("UID", escape(todo.uid))
        let stamp = [todo.modified, todo.created, now].lazy.compactMap { $0.flatMap(CompactTime.utcText) }.first
        property("DTSTAMP", stamp ?? "19700101T000000Z")
        property("SUMMARY", escape(todo.title))
        if !todo.notes.isEmpty { property("DESCRIPTION", escape(todo.notes)) }
        if let due = todo.due {
            if due.allDay {
                if let day = CompactTime.dateText(due.date, in: DueDate.floating) { property("DUE;VALUE=DATE", day) }
            } else {
                time("DUE", due.date)
            }
        }
        if let rule = cleanRule(todo.repeatRule) { property("RRULE", rule) }
        let tags = todo.tags.map(escape).filter { !$0.isEmpty }
        if !tags.isEmpty { property("CATEGORIES", tags.joined(separator: ",")) }
        if let priority = icalPriority(todo.priority) { property("PRIORITY", String(priority)) }
        property("STATUS", todo.isCompleted ? "COMPLETED" : "NEEDS-ACTION")
        if todo.isCompleted { time("COMPLETED", todo.completedAt) }
        time("CREATED", todo.created)
        time("LAST-MODIFIED", todo.modified)
        // `Annotation.wire` traps on times beyond Int64 seconds: only annotations within the years 1-9999 are written.
        for annotation in todo.annotations where CompactTime.seconds(annotation.entry) != nil {
            property("COMMENT", escape(annotation.wire))
        }
        if includeList, let list = todo.listName { property("X-CLOUDTODO-LIST", escape(list)) }
        if todo.repeatFromCompletion { property("X-CLOUDTODO-REPEAT-FROM", "COMPLETION") }
        if let series = todo.series { property("X-CLOUDTODO-SERIES", escape(series)) }
        if todo.occurrence > 1 { property("X-CLOUDTODO-OCCURRENCE", String(todo.occurrence)) }
        // Scheduled is when work may begin: RFC 5545's DTSTART of a VTODO. Wait, until and start have no standard
        // property; dependencies are RFC 9253's RELATED-TO;RELTYPE=DEPENDS-ON.
        time("DTSTART", todo.scheduled)
        time("X-CLOUDTODO-WAIT", todo.wait)
        time("X-CLOUDTODO-UNTIL", todo.until)
        time("X-CLOUDTODO-START", todo.start)
        for uid in todo.depends { property("RELATED-TO;RELTYPE=DEPENDS-ON", escape(uid)) }
        property("END", "VTODO")
    }
}
