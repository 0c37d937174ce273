import CloudModel
import Foundation

/// Writing: a JSON array `task import` accepts, one task per line.
extension TaskwarriorJSON {
    /// The Taskwarrior uuid of a uid: the uid itself when it is a UUID (lowercased), else a version 5 UUID derived
    /// from it, the same on every export.
    public static func uuid(for uid: String) -> String {
        // A uid already in the canonical 8-4-4-4-12 hex form (every record name this app makes) is its own uuid,
        // lowercased: what Foundation's parse and print give, without their sscanf and printf (6 % of an export).
        if let canonical = lowercasedCanonicalUUID(uid) { return canonical }
        return UUID(uuidString: uid).map { $0.uuidString.lowercased() } ?? StableID.uuid(uid)
    }

    /// `uid` lowercased when it is exactly 36 ASCII characters, hex digits with dashes at 8, 13, 18 and 23; else nil
    /// (also for a string without contiguous UTF-8, which then takes Foundation's parse). A uid already lower-case
    /// (every record name this app makes) is answered as it is, without a copy.
    static func lowercasedCanonicalUUID(_ uid: String) -> String? {
        guard uid.utf8.count == 36 else { return nil }
        // nil: not of that form; false: lower-case already; true: upper-case hex digits to lower.
        let upper = uid.utf8.withContiguousStorageIfAvailable { bytes -> Bool? in
            var upper = false
            for index in 0..<36 {
                let byte = bytes[index]
                if index == 8 || index == 13 || index == 18 || index == 23 {
                    guard byte == UInt8(ascii: "-") else { return nil }
                    continue
                }
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): continue
                case UInt8(ascii: "A")...UInt8(ascii: "F"): upper = true
                default: return nil
                }
            }
            return upper
        }
        switch upper {
        case .some(.some(false)): return uid
        case .some(.some(true)): return String(decoding: uid.utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "F") ? $0 | 0x20 : $0 }, as: UTF8.self)
        default: return nil
        }
    }

    /// A JSON array of one object per todo, as `task import` reads it. The uid goes in `cloudtodo_uid` when it is not
    /// the uuid; notes in `cloudtodo_notes`; all-day due dates as the midnight of their day in `calendar`'s zone (the reader's), in UTC. Warnings
    /// name what Taskwarrior cannot carry (repeat rules without a `recur` word, tags with spaces or commas).
    public static func encode(_ todos: [PortableTodo], calendar: Calendar, now: Date = Date()) -> PortableExport {
        var log = WarningLog()
        var days = DayStarts(calendar: calendar)
        var out: [UInt8] = []
        out.reserveCapacity(todos.count * 300 + 4)
        out.append(contentsOf: Array("[\n".utf8))
        for (index, todo) in todos.enumerated() {
            if index > 0 { out.append(contentsOf: [0x2C, 0x0A]) }
            var object = JSONObjectWriter()
            // An open occurrence Taskwarrior can repeat goes as a template and its instance 0.
            if let template = recurrence(of: todo, calendar: calendar) {
                var parent = JSONObjectWriter()
                var repeated = WarningLog()  // the instance says the same
                fill(&parent, with: todo, days: &days, now: now, log: &repeated, as: .template(template.word))
                out.append(contentsOf: parent.finish())
                out.append(contentsOf: [0x2C, 0x0A])
                fill(&object, with: todo, days: &days, now: now, log: &log, as: .instance(template.word, parent: template.uuid))
            } else {
                fill(&object, with: todo, days: &days, now: now, log: &log, as: .task)
            }
            out.append(contentsOf: object.finish())
        }
        out.append(contentsOf: Array("\n]\n".utf8))
        return PortableExport(text: String(decoding: out, as: UTF8.self), warnings: log.all)
    }

    /// `tag` as Taskwarrior can hold it: commas, whitespace and control characters as `_`.
    static func taskwarriorTag(_ tag: String) -> String {
        // Printable ASCII without a comma (nearly every tag) has nothing to replace.
        if TagName.isVisibleASCII(tag), !tag.utf8.contains(UInt8(ascii: ",")) { return tag }
        return String(String.UnicodeScalarView(tag.unicodeScalars.map { $0 == "," || $0.properties.isWhitespace || $0.value < 0x20 ? "_" : $0 }))
    }

    /// What a todo is written as.
    private enum Role {
        /// A task of its own (not repeating, done, or with a rule Taskwarrior cannot say).
        case task
        /// The `status:recurring` template of the todo's series, with its `recur` word.
        case template(String)
        /// Instance 0 of the template `parent`.
        case instance(String, parent: String)

        var isTemplate: Bool { if case .template = self { true } else { false } }
    }

    /// The `recur` word and template uuid of an open occurrence with a due date whose rule Taskwarrior can say.
    private static func recurrence(of todo: PortableTodo, calendar: Calendar) -> (word: String, uuid: String)? {
        guard !todo.isCompleted, let due = todo.due, CompactTime.seconds(due.date) != nil, let rule = ICalendar.cleanRule(todo.repeatRule),
            let word = TaskwarriorRecur.word(from: rule, due: due, calendar: calendar)
        else { return nil }
        return (word, TaskwarriorSeries.templateUUID(series: todo.series ?? todo.uid))
    }

    /// One todo's fields as a Taskwarrior task object (or as its series' template).
    private static func fill(
        _ object: inout JSONObjectWriter, with todo: PortableTodo, days: inout DayStarts, now: Date, log: inout WarningLog, as role: Role
    ) {
        // For warnings only: most todos have none, and quoting every title cost 7 % of an export.
        var name: String { PortableLimits.quoted(todo.title) }
        var uuid = uuid(for: todo.uid)
        if case .template = role { uuid = TaskwarriorSeries.templateUUID(series: todo.series ?? todo.uid) }
        object.add("uuid", uuid)
        if todo.title.isEmpty {
            object.add("description", "(no title)")
            log.add("todo \(PortableLimits.quoted(todo.uid)) has no title; Taskwarrior needs one, so it is '(no title)'.")
        } else {
            object.add("description", todo.title)
        }
        if case .template = role { object.add("status", "recurring") } else { object.add("status", todo.isCompleted ? "completed" : "pending") }
        object.add("entry", utc: todo.created)
        object.add("modified", utc: todo.modified)
        if todo.isCompleted,
            let end = [todo.completedAt, todo.modified, todo.created, now].lazy.compactMap({ $0 }).first(where: { CompactTime.seconds($0) != nil })
        {
            object.add("end", utc: end)
        }
        if let due = todo.due, CompactTime.seconds(due.date) != nil { object.add("due", utc: days.start(of: due)) }
        switch todo.priority {
        case ...0: break
        case 1: object.add("priority", "L")
        case 2: object.add("priority", "M")
        default: object.add("priority", "H")
        }
        if let list = todo.listName, !list.isEmpty { object.add("project", list) }
        if !todo.tags.isEmpty {
            var changed = false
            var tags: [String] = []
            for tag in todo.tags {
                let safe = taskwarriorTag(tag)
                changed = changed || safe != tag
                if !safe.isEmpty, !tags.contains(safe) { tags.append(safe) }
            }
            if changed { log.add("todo \(name): tags with spaces or commas were written with '_' instead (Taskwarrior allows neither).") }
            if !tags.isEmpty { object.add("tags", strings: tags) }
        }
        if let rule = ICalendar.cleanRule(todo.repeatRule) {
            // The exact rule always travels; Taskwarrior's own recurrence says it when it can.
            object.add(TaskwarriorSeries.repeatAttribute, rule)
            switch role {
            case .template(let word):
                object.add("recur", word)
                object.add("mask", "-")
            case .instance(let word, let parent):
                object.add("recur", word)
                object.add("parent", parent)
                object.add("imask", number: 0)
            case .task where !todo.isCompleted:
                let why = todo.due == nil ? "Taskwarrior repeats only tasks with a due date" : "Taskwarrior has no recurrence like it"
                log.add("todo \(name): \(why); its repeat \(PortableLimits.quoted(rule)) travels in \(TaskwarriorSeries.repeatAttribute), and importing it back after completing it in Taskwarrior makes the next occurrence.")
            case .task: break
            }
        }
        if !role.isTemplate {
            object.add("wait", utc: todo.wait)
            object.add("scheduled", utc: todo.scheduled)
            object.add("until", utc: todo.until)
            object.add("start", utc: todo.start)
            if !todo.depends.isEmpty { object.add("depends", strings: todo.depends.map(uuid(for:))) }
        }
        let notes = todo.annotations.compactMap { note in CompactTime.utcText(note.entry).map { ($0, note.text) } }
        if !notes.isEmpty, !role.isTemplate { object.add("annotations", annotations: notes) }
        // Not on a template: Taskwarrior copies a template's attributes into every instance it makes.
        if uuid != todo.uid, !role.isTemplate { object.add(uidAttribute, todo.uid) }
        if !todo.notes.isEmpty { object.add(notesAttribute, todo.notes) }
        if todo.repeatFromCompletion { object.add(repeatFromAttribute, "completion") }
        if let series = todo.series ?? (role.isTemplate ? todo.uid : nil) { object.add(seriesAttribute, series) }
        if todo.occurrence > 1 { object.add(occurrenceAttribute, String(todo.occurrence)) }
    }
}

/// Writes one JSON object of string, string-array and annotation fields straight to bytes (no escaping of `/` or
/// non-ASCII; quotes, backslashes and control characters escaped).
struct JSONObjectWriter {
    private var bytes: [UInt8]

    /// An empty object, with room for a task's usual fields (growing an array from one byte copied it nine times).
    init() {
        bytes = []
        bytes.reserveCapacity(512)
        bytes.append(0x7B)
    }

    /// Adds `"key":"value"`.
    mutating func add(_ key: String, _ value: String) {
        field(key)
        string(value)
    }

    /// Adds `"key":"YYYYMMDDTHHMMSSZ"` of `date`, written in place; nothing when there is no date or it lies outside
    /// the years 1 to 9999.
    mutating func add(_ key: String, utc date: Date?) {
        guard let date, CompactTime.seconds(date) != nil else { return }
        field(key)
        bytes.append(0x22)
        _ = CompactTime.appendUTC(date, to: &bytes)
        bytes.append(0x22)
    }

    /// Adds `"key":N`.
    mutating func add(_ key: String, number: Int) {
        field(key)
        bytes.append(contentsOf: Array(String(number).utf8))
    }

    /// Adds `"key":["a","b"]`.
    mutating func add(_ key: String, strings: [String]) {
        field(key)
        bytes.append(0x5B)
        for (index, value) in strings.enumerated() {
            if index > 0 { bytes.append(0x2C) }
            string(value)
        }
        bytes.append(0x5D)
    }

    /// Adds `"key":[{"entry":…,"description":…}]`.
    mutating func add(_ key: String, annotations: [(entry: String, text: String)]) {
        field(key)
        bytes.append(0x5B)
        for (index, note) in annotations.enumerated() {
            if index > 0 { bytes.append(0x2C) }
            var object = JSONObjectWriter()
            object.add("entry", note.entry)
            object.add("description", note.text)
            bytes.append(contentsOf: object.finish())
        }
        bytes.append(0x5D)
    }

    /// The object's bytes, closed.
    mutating func finish() -> [UInt8] {
        bytes.append(0x7D)
        return bytes
    }

    private mutating func field(_ key: String) {
        if bytes.count > 1 { bytes.append(0x2C) }
        string(key)
        bytes.append(0x3A)
    }

    private mutating func string(_ value: String) { JSONWriter.appendString(value, to: &bytes) }
}
