import Foundation

/// Why a file could not be read as Taskwarrior JSON at all.
public struct TaskwarriorJSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// One plain sentence saying what is wrong and what is accepted.
    public let description: String
}

/// Taskwarrior's JSON (`task export`, `task import`): reading here, writing in the writer file.
public enum TaskwarriorJSON {
    /// Our UDA carrying the CloudTodo uid when it is not the Taskwarrior uuid itself.
    public static let uidAttribute = "cloudtodo_uid"
    /// Our UDA carrying the notes (Taskwarrior has no such field).
    public static let notesAttribute = "cloudtodo_notes"
    /// Our UDA saying `completion` when the next occurrence counts from the completion.
    public static let repeatFromAttribute = "cloudtodo_repeat_from"
    /// The attribute carrying the repeating series' name (`PortableTodo.series`).
    public static let seriesAttribute = "cloudtodo_series"
    /// The attribute carrying the occurrence's number in its series.
    public static let occurrenceAttribute = "cloudtodo_occurrence"

    /// The todos of a `task export` (a JSON array, or one object per line). Pending and waiting tasks are open,
    /// completed ones done; deleted tasks are skipped, and recurring templates are read into their instances (one
    /// pending per template, the earliest due; see `TaskwarriorSeries`). A due at 00:00:00 in `calendar` is all day.
    public static func decode(_ data: Data, calendar: Calendar) throws(TaskwarriorJSONError) -> PortableImport {
        guard data.count <= PortableLimits.inputBytes else {
            throw TaskwarriorJSONError(description: "The Taskwarrior file is larger than 512 MiB; export fewer tasks at a time.")
        }
        var start = data.startIndex
        if data.starts(with: [0xEF, 0xBB, 0xBF]) { start += 3 }
        while start < data.endIndex, [0x20, 0x09, 0x0D, 0x0A].contains(data[start]) { start += 1 }
        guard start < data.endIndex, data[start] == 0x5B || data[start] == 0x7B else {
            throw TaskwarriorJSONError(description: "This is not Taskwarrior JSON: it should start with [ (an array) or { (one task per line).")
        }
        let body = data[start...]
        var objects: [(value: Any, label: String)] = []
        var log = WarningLog()
        if let whole = try? JSONSerialization.jsonObject(with: body) {
            if let array = whole as? [Any] {
                objects = array.enumerated().map { ($0.element, "task \($0.offset + 1)") }
            } else {
                objects = [(whole, "task 1")]
            }
        } else if data[start] == 0x7B {
            var lineNumber = 0
            for line in body.split(separator: 0x0A, omittingEmptySubsequences: false) {
                lineNumber += 1
                guard line.contains(where: { $0 > 0x20 }) else { continue }
                if let object = try? JSONSerialization.jsonObject(with: Data(line)) {
                    objects.append((object, "line \(lineNumber)"))
                } else {
                    log.add("line \(lineNumber): is not a JSON object; it was skipped.")
                }
            }
        } else {
            throw TaskwarriorJSONError(description: "The Taskwarrior file is not valid JSON; give the output of `task export`.")
        }
        var reader = Reader(calendar: calendar, log: log)
        // Templates first, wherever they stand in the file: their instances take the series from them.
        for case let (object as [String: Any], _) in objects.prefix(PortableLimits.todos) { reader.noteTemplate(object) }
        for (value, label) in objects.prefix(PortableLimits.todos) {
            guard let object = value as? [String: Any] else {
                reader.log.add("\(label): is not a JSON object; it was skipped.")
                continue
            }
            reader.read(object, label: label)
        }
        if objects.count > PortableLimits.todos {
            reader.log.add("The file holds more than \(PortableLimits.todos) tasks; the rest were skipped.")
        }
        return reader.finish()
    }

    /// The state of one decode.
    private struct Reader {
        let calendar: Calendar
        var log: WarningLog
        var todos: [PortableTodo] = []
        /// For each todo, the template it is an instance of (pending instances only).
        var parents: [String?] = []
        var deleted = 0
        /// The templates some task of the file is an instance of.
        var instantiated: Set<String> = []
        /// The uid each task's uuid was read as, for `depends`.
        var uidOfUUID: [String: String] = [:]
        /// The recurring templates by uuid (lowercased).
        var series: [String: TaskwarriorSeries.Template] = [:]

        init(calendar: Calendar, log: WarningLog) {
            self.calendar = calendar
            self.log = log
        }

        /// Keeps what a `status:recurring` template tells its instances.
        mutating func noteTemplate(_ object: [String: Any]) {
            guard (object["status"] as? String)?.lowercased() == "recurring", let uuid = object["uuid"] as? String, uuid.utf8.count <= 1_000
            else { return }
            let due = optionalDate(object["due"]).flatMap { $0 }
            let allDay = due.map { CompactTime.isMidnight($0, in: calendar.timeZone) } ?? true
            let dueDate = due.map { allDay ? DueDate.day($0, in: calendar) : DueDate($0, allDay: false) }
            let name = (object[TaskwarriorJSON.seriesAttribute] as? String).flatMap { $0.isEmpty || $0.utf8.count > 1_000 ? nil : $0 }
            let first = (object[TaskwarriorJSON.occurrenceAttribute] as? String).flatMap(Int.init).flatMap { (1...1_000_000).contains($0) ? $0 : nil }
            series[uuid.trimmingCharacters(in: .whitespaces).lowercased()] = TaskwarriorSeries.Template(
                rule: TaskwarriorSeries.rule(of: object, due: dueDate, calendar: calendar),
                series: name ?? uuid.trimmingCharacters(in: .whitespaces).lowercased(), firstOccurrence: first ?? 1, allDay: allDay)
        }

        /// Adds the todo of one task object, or a warning saying why it was skipped.
        mutating func read(_ object: [String: Any], label: String) {
            let status = (object["status"] as? String)?.lowercased() ?? "pending"
            switch status {
            case "pending", "waiting", "completed": break
            case "deleted":
                deleted += 1
                return
            case "recurring":
                return
            default:
                log.add("\(label): status \(PortableLimits.quoted(status)) is not pending, waiting, completed, deleted or recurring; skipped.")
                return
            }
            let title = string(object["description"], label: label, field: "description") ?? ""
            var todo = PortableTodo(uid: "", title: title)
            todo.isCompleted = status == "completed"
            if let uid = object[TaskwarriorJSON.uidAttribute] as? String, !uid.isEmpty, uid.utf8.count <= 1_000 {
                todo.uid = uid
            } else if let uuid = object["uuid"] as? String, !uuid.isEmpty, uuid.utf8.count <= 1_000 {
                todo.uid = uuid.trimmingCharacters(in: .whitespaces).lowercased()
            } else {
                todo.uid = StableID.uuid("taskwarrior\n\(title)\n\(object["entry"] as? String ?? "")")
            }
            if case .some(.none) = optionalDate(object["due"]) {
                log.add("\(label): due \(PortableLimits.quoted("\(object["due"] ?? "")")) is not a date (YYYYMMDDTHHMMSSZ); skipped.")
                return
            }
            if let due = date(object["due"], label: label, field: "due") {
                // Taskwarrior has no all-day dates: a local midnight is read as that calendar day.
                todo.due = CompactTime.isMidnight(due, in: calendar.timeZone) ? DueDate.day(due, in: calendar) : DueDate(due, allDay: false)
            }
            todo.created = date(object["entry"], label: label, field: "entry")
            todo.modified = date(object["modified"], label: label, field: "modified")
            if todo.isCompleted { todo.completedAt = date(object["end"], label: label, field: "end") }
            for case let tag as String in (object["tags"] as? [Any] ?? []).prefix(PortableLimits.itemsPerTodo) {
                let tag = PortableLimits.field(tag).text
                if !tag.isEmpty, !todo.tags.contains(tag) { todo.tags.append(tag) }
            }
            switch (object["priority"] as? String)?.uppercased() {
            case "H": todo.priority = 3
            case "M": todo.priority = 2
            case "L": todo.priority = 1
            case nil, "": todo.priority = 0
            case let other?: log.add("\(label): priority \(PortableLimits.quoted(other)) is not H, M or L; it was ignored.")
            }
            if let project = string(object["project"], label: label, field: "project"), !project.isEmpty { todo.listName = project }
            todo.wait = date(object["wait"], label: label, field: "wait")
            todo.scheduled = date(object["scheduled"], label: label, field: "scheduled")
            todo.until = date(object["until"], label: label, field: "until")
            if !todo.isCompleted { todo.start = date(object["start"], label: label, field: "start") }
            // An array in 2.6, a comma-separated string before it: UUIDs, made uids in `finish`.
            let depends = (object["depends"] as? [Any])?.compactMap { $0 as? String } ?? (object["depends"] as? String)?.split(separator: ",").map(String.init) ?? []
            todo.depends = depends.prefix(PortableLimits.itemsPerTodo).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
            todo.notes = string(object[TaskwarriorJSON.notesAttribute], label: label, field: "notes") ?? ""
            for case let note as [String: Any] in (object["annotations"] as? [Any] ?? []).prefix(PortableLimits.itemsPerTodo) {
                guard let entry = date(note["entry"], label: label, field: "annotation entry") else { continue }
                let text = string(note["description"], label: label, field: "annotation") ?? ""
                todo.annotations.append(Annotation(entry: entry, text: text))
            }
            let parent = (object["parent"] as? String)?.trimmingCharacters(in: .whitespaces).lowercased()
            let template = parent.flatMap { series[$0] }
            todo.repeatRule = TaskwarriorSeries.rule(of: object, due: todo.due, calendar: calendar) ?? template?.rule
            if todo.repeatRule == nil, let recur = object["recur"] as? String {
                log.add("\(label): repeat \(PortableLimits.quoted(recur)) has no RRULE equivalent; the todo was read without repeating.")
            }
            todo.repeatFromCompletion =
                (object[TaskwarriorJSON.repeatFromAttribute] as? String)?.lowercased() == "completion"
                || (object["rtype"] as? String) == "chained"
            if let series = object[TaskwarriorJSON.seriesAttribute] as? String, !series.isEmpty { todo.series = series }
            if let number = (object[TaskwarriorJSON.occurrenceAttribute] as? String).flatMap(Int.init), (1...1_000_000).contains(number) {
                todo.occurrence = number
            }
            if let template, let parent {
                instantiated.insert(parent)
                instance(&todo, of: template, object: object)
            }
            if let uuid = (object["uuid"] as? String)?.trimmingCharacters(in: .whitespaces).lowercased(), !uuid.isEmpty { uidOfUUID[uuid] = todo.uid }
            todos.append(todo)
            parents.append(todo.isCompleted ? nil : parent)
        }

        /// An instance of a template: occurrence `first + imask` of the template's series, named as the series names
        /// it unless it carries our uid; an all-day series' due read as a day (Taskwarrior's `2w` steps in seconds, so
        /// across a daylight-saving change an instance may fall an hour off midnight).
        func instance(_ todo: inout PortableTodo, of template: TaskwarriorSeries.Template, object: [String: Any]) {
            guard let index = TaskwarriorSeries.index(object["imask"]) else {
                todo.series = todo.series ?? template.series
                return
            }
            todo.occurrence = min(template.firstOccurrence + index, 1_000_000)
            if (object[TaskwarriorJSON.uidAttribute] as? String)?.isEmpty ?? true {
                todo.uid = TaskwarriorSeries.occurrenceName(series: template.series, number: todo.occurrence)
            }
            todo.series = todo.uid == template.series ? nil : template.series
            if template.allDay, let due = todo.due, !due.allDay { todo.due = DueDate.day(due.date.addingTimeInterval(3 * 3_600), in: calendar) }
        }

        /// The result: of several pending instances of one template only the earliest due is kept, of several tasks with
        /// one uid the first.
        mutating func finish() -> PortableImport {
            var earliest: [String: Int] = [:]
            for (index, parent) in parents.enumerated() {
                guard let parent else { continue }
                if let kept = earliest[parent], (todos[kept].due?.date ?? .distantFuture) <= (todos[index].due?.date ?? .distantFuture) {
                    continue
                }
                earliest[parent] = index
            }
            // A dependency on a task of the file names that task's uid; one on a task not in it keeps its UUID
            // (the record name of a todo exported from here).
            for index in todos.indices where !todos[index].depends.isEmpty {
                todos[index].depends = todos[index].depends.map { uidOfUUID[$0] ?? $0 }
            }
            var kept: [PortableTodo] = []
            var seen: Set<String> = []
            var dropped = 0
            for (index, todo) in todos.enumerated() {
                if let parent = parents[index], earliest[parent] != index {
                    dropped += 1
                } else if !seen.insert(todo.uid).inserted {
                    log.add("A second task with uuid \(PortableLimits.quoted(todo.uid)); only the first was kept.")
                } else {
                    kept.append(todo)
                }
            }
            func count(_ number: Int, _ one: String, _ many: String) -> String { number == 1 ? "1 \(one) was" : "\(number) \(many) were" }
            if dropped > 0 {
                log.add("\(count(dropped, "later pending occurrence", "later pending occurrences")) skipped (each repeating task keeps its earliest).")
            }
            if deleted > 0 { log.add("\(count(deleted, "deleted task", "deleted tasks")) skipped.") }
            let templates = series.keys.filter { !instantiated.contains($0) }.count
            if templates > 0 {
                log.add("\(count(templates, "recurring template", "recurring templates")) without an occurrence in the file skipped.")
            }
            return PortableImport(todos: kept, warnings: log.all)
        }

        /// A string field cut to the field limit, nil when absent or not a string.
        mutating func string(_ value: Any?, label: String, field: String) -> String? {
            guard let text = value as? String else { return nil }
            let cut = PortableLimits.field(text)
            if cut.cut { log.add("\(label): \(field) is longer than \(PortableLimits.fieldCharacters) characters; the rest was dropped.") }
            return cut.text
        }

        /// A date field: nil when absent, or (after a warning) when not a date.
        mutating func date(_ value: Any?, label: String, field: String) -> Date? {
            switch optionalDate(value) {
            case .none: return nil
            case .some(.none):
                log.add("\(label): \(field) \(PortableLimits.quoted("\(value ?? "")")) is not a date (YYYYMMDDTHHMMSSZ); it was ignored.")
                return nil
            case .some(.some(let date)): return date
            }
        }

        /// `.none` when absent, `.some(nil)` when present but not a date, else the date: a `YYYYMMDDTHHMMSSZ` string
        /// (floating or date-only forms read in the caller's time zone) or a number of seconds since 1970.
        func optionalDate(_ value: Any?) -> Date?? {
            guard let value, !(value is NSNull) else { return .none }
            if let text = value as? String {
                guard let parsed = CompactTime.parse(text.trimmingCharacters(in: .whitespaces)) else { return .some(nil) }
                return parsed.hasTime ? CompactTime.date(parsed, in: calendar.timeZone) : CompactTime.startOfDay(parsed, in: calendar)
            }
            if let number = value as? Double, number.isFinite, abs(number) < 253_402_300_800 {
                return Date(timeIntervalSince1970: number.rounded(.down))
            }
            return .some(nil)
        }
    }
}
