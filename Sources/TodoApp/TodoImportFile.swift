import CloudModel
import Foundation
import TodoPlanning
import TodoSync

/// The file `todo import` reads: a JSON list of todos, `[{"title", "notes"?, "due"?, "priority"?, "done"?}]`.
///
/// Read with the fast JSON parser (100,000 entries in a few tens of milliseconds) and checked whole before anything
/// is stored: a wrong entry refuses the file, naming the entry, so an import is never half done. Unknown keys are
/// ignored; entries whose title is blank are skipped and counted.
public enum TodoImportFile {
    /// What a file holds.
    public struct Contents: Sendable, Hashable {
        /// The todos to add, in file order.
        public var todos: [NewTodo]
        /// Entries skipped because their title is empty or blank.
        public var skippedUntitled: Int
    }

    /// Why a file cannot be imported, in words for the user.
    public struct FormatError: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String

        /// An error described in words.
        public init(_ description: String) { self.description = description }
    }

    /// The members of an entry the file may give; others are ignored.
    enum Key: Int, CaseIterable {
        case title, notes, due, priority, tags, id, list, series, occurrence, `repeat`, repeatFrom, annotations, done

        /// The member's name in the file.
        var name: String { Self.names[rawValue] }
        static let names = ["title", "notes", "due", "priority", "tags", "id", "list", "series", "occurrence", "repeat", "repeatFrom", "annotations", "done"]
    }

    /// Reads the todos of a file's bytes. `dueDate` reads a `due` text (nil: no date) and throws for text it cannot
    /// read; it is asked once per distinct text.
    ///
    /// The list is read element by element, each entry's known members kept in place and checked as it is read: a
    /// tree of the whole file (a dictionary per entry) cost half the reading of 10,000 todos. A file that is both
    /// malformed later on and wrong in an earlier entry is refused for the entry.
    public static func parse(_ bytes: some Collection<UInt8>, dueDate: (String) throws -> DueDate?) throws -> Contents {
        var contents = Contents(todos: [], skippedUntitled: 0)
        // Imports repeat few dates: each distinct text is read once.
        var dates: [String: DueDate?] = [:]
        let times = ISO8601DateFormatter()
        let isList: Bool
        do {
            isList = try JSONParser.forEachElement(of: bytes, keeping: Key.names) { index, values in
                guard let values else { throw FormatError("entry \(index + 1) is not an object with a title") }
                try read(values, number: index + 1, into: &contents, dates: &dates, dueDate: dueDate, times: times)
            }
        } catch let error as FormatError {
            throw error
        } catch {
            throw FormatError("not valid JSON (\(error))")
        }
        guard isList else {
            do {
                _ = try JSONParser.parse(bytes)
            } catch {
                throw FormatError("not valid JSON (\(error))")
            }
            throw FormatError("not a JSON list of todos ([{\"title\": ...}, ...])")
        }
        return contents
    }

    /// Checks entry `number` (its members' values at their `Key`'s place) and adds its todo to `contents`, or counts it
    /// skipped when its title is blank.
    private static func read(
        _ fields: [JSONValue?], number: Int, into contents: inout Contents, dates: inout [String: DueDate?], dueDate: (String) throws -> DueDate?,
        times: ISO8601DateFormatter
    ) throws {
        func text(_ key: Key) throws -> String? {
            switch fields[key.rawValue] {
            case nil, .null?: return nil
            case .string(let value)?: return value
            default: throw FormatError("entry \(number): \"\(key.name)\" must be text")
            }
        }
        guard let title = try text(.title) else { throw FormatError("entry \(number) has no \"title\"") }
        // A visible ASCII byte is a character that is not white space (nearly every title): the rest are checked whole.
        guard title.utf8.contains(where: { $0 > 0x20 && $0 < 0x7F }) || !title.allSatisfy(\.isWhitespace) else {
            contents.skippedUntitled += 1
            return
        }
        var todo = NewTodo(title: title, notes: try text(.notes) ?? "")
        if let due = try text(.due) {
            if let known = dates[due] {
                todo.due = known
            } else {
                do {
                    todo.due = try dueDate(due)
                } catch {
                    throw FormatError("entry \(number): \(error)")
                }
                dates[due] = todo.due
            }
        }
        switch fields[Key.priority.rawValue] {
        case nil, .null?: break
        case .int(let value)?: todo.priority = Int(min(max(value, 0), 3))
        case .double(let value)? where value == value.rounded(): todo.priority = Int(min(max(value, 0), 3))
        default: throw FormatError("entry \(number): \"priority\" must be a whole number, 0 to 3")
        }
        switch fields[Key.tags.rawValue] {
        case nil, .null?: break
        case .array(let values)?:
            for value in values {
                guard case .string(let tag) = value else { throw FormatError("entry \(number): \"tags\" must be a list of text") }
                do { todo.tags.append(try TagName.read(tag)) } catch { throw FormatError("entry \(number): \(error)") }
            }
        default: throw FormatError("entry \(number): \"tags\" must be a list of text")
        }
        if let id = try text(.id) { todo.recordName = id }
        if let list = try text(.list) { todo.listName = list }
        if let series = try text(.series) { todo.series = series }
        switch fields[Key.occurrence.rawValue] {
        case nil, .null?: break
        case .int(let value)? where (1...1_000_000).contains(value): todo.occurrence = Int(value)
        default: throw FormatError("entry \(number): \"occurrence\" must be a whole number from 1")
        }
        if let words = try text(.repeat) {
            do {
                let rule = try RepeatRule(words: words)
                let fromCompletion = try text(.repeatFrom) == "completion" || rule.from == .completion
                todo.repeating = RepeatSetting(rrule: rule.rrule, fromCompletion: fromCompletion)
            } catch {
                throw FormatError("entry \(number): \(error)")
            }
        }
        switch fields[Key.annotations.rawValue] {
        case nil, .null?: break
        case .array(let values)?:
            for value in values {
                guard case .object(let note) = value, case .string(let entry)? = note["entry"], case .string(let words)? = note["text"],
                    let date = times.date(from: entry)
                else { throw FormatError("entry \(number): each annotation is {\"entry\": ISO 8601 time, \"text\": text}") }
                todo.annotations.append(Annotation(entry: date, text: words))
            }
        default: throw FormatError("entry \(number): \"annotations\" must be a list")
        }
        switch fields[Key.done.rawValue] {
        case nil, .null?: break
        case .bool(let value)?: todo.isCompleted = value
        default: throw FormatError("entry \(number): \"done\" must be true or false")
        }
        contents.todos.append(todo)
    }

    /// The file's text for `todos`, read back by `parse` to the same todos (`due` as `YYYY-MM-DD` or an ISO 8601 time).
    public static func encode(_ todos: [PortableTodo], calendar: Calendar) throws -> String {
        struct Note: Encodable {
            var entry: String
            var text: String
        }
        struct Entry: Encodable {
            var id: String
            var title: String
            var list: String?
            var notes: String?
            var due: String?
            var priority: Int?
            var done: Bool?
            var tags: [String]?
            var `repeat`: String?
            var repeatFrom: String?
            var annotations: [Note]?
            var series: String?
            var occurrence: Int?
        }
        let times = ISO8601DateFormatter()
        times.timeZone = calendar.timeZone
        let entries = todos.map { (todo: PortableTodo) -> Entry in
            var entry = Entry(id: todo.uid, title: todo.title, list: todo.listName)
            if !todo.notes.isEmpty { entry.notes = todo.notes }
            if let due = todo.due { entry.due = due.allDay ? due.text(in: calendar) : times.string(from: due.date) }
            if todo.priority != 0 { entry.priority = todo.priority }
            if todo.isCompleted { entry.done = true }
            if !todo.tags.isEmpty { entry.tags = todo.tags }
            entry.repeat = todo.repeatRule
            if todo.repeatFromCompletion { entry.repeatFrom = "completion" }
            entry.series = todo.series
            if todo.occurrence > 1 { entry.occurrence = todo.occurrence }
            if !todo.annotations.isEmpty {
                entry.annotations = todo.annotations.map { Note(entry: times.string(from: $0.entry), text: $0.text) }
            }
            return entry
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(entries), as: UTF8.self) + "\n"
    }
}
