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

    /// Reads the todos of a file's bytes. `dueDate` reads a `due` text (nil: no date) and throws for text it cannot
    /// read; it is asked once per distinct text.
    public static func parse(_ bytes: some Collection<UInt8>, dueDate: (String) throws -> DueDate?) throws -> Contents {
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            throw FormatError("not valid JSON (\(error))")
        }
        guard case .array(let entries) = document else { throw FormatError("not a JSON list of todos ([{\"title\": ...}, ...])") }
        var contents = Contents(todos: [], skippedUntitled: 0)
        contents.todos.reserveCapacity(entries.count)
        // Imports repeat few dates: each distinct text is read once.
        var dates: [String: DueDate?] = [:]
        let times = ISO8601DateFormatter()
        for (index, entry) in entries.enumerated() {
            let number = index + 1
            guard case .object(let fields) = entry else { throw FormatError("entry \(number) is not an object with a title") }
            func text(_ key: String) throws -> String? {
                switch fields[key] {
                case nil, .null?: return nil
                case .string(let value)?: return value
                default: throw FormatError("entry \(number): \"\(key)\" must be text")
                }
            }
            guard let title = try text("title") else { throw FormatError("entry \(number) has no \"title\"") }
            guard !title.allSatisfy(\.isWhitespace) else {
                contents.skippedUntitled += 1
                continue
            }
            var todo = NewTodo(title: title, notes: try text("notes") ?? "")
            if let due = try text("due") {
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
            switch fields["priority"] {
            case nil, .null?: break
            case .int(let value)?: todo.priority = Int(min(max(value, 0), 3))
            case .double(let value)? where value == value.rounded(): todo.priority = Int(min(max(value, 0), 3))
            default: throw FormatError("entry \(number): \"priority\" must be a whole number, 0 to 3")
            }
            switch fields["tags"] {
            case nil, .null?: break
            case .array(let values)?:
                for value in values {
                    guard case .string(let tag) = value else { throw FormatError("entry \(number): \"tags\" must be a list of text") }
                    do { todo.tags.append(try TagName.read(tag)) } catch { throw FormatError("entry \(number): \(error)") }
                }
            default: throw FormatError("entry \(number): \"tags\" must be a list of text")
            }
            if let id = try text("id") { todo.recordName = id }
            if let list = try text("list") { todo.listName = list }
            if let series = try text("series") { todo.series = series }
            switch fields["occurrence"] {
            case nil, .null?: break
            case .int(let value)? where (1...1_000_000).contains(value): todo.occurrence = Int(value)
            default: throw FormatError("entry \(number): \"occurrence\" must be a whole number from 1")
            }
            if let words = try text("repeat") {
                do {
                    let rule = try RepeatRule(words: words)
                    let fromCompletion = try text("repeatFrom") == "completion" || rule.from == .completion
                    todo.repeating = RepeatSetting(rrule: rule.rrule, fromCompletion: fromCompletion)
                } catch {
                    throw FormatError("entry \(number): \(error)")
                }
            }
            switch fields["annotations"] {
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
            switch fields["done"] {
            case nil, .null?: break
            case .bool(let value)?: todo.isCompleted = value
            default: throw FormatError("entry \(number): \"done\" must be true or false")
            }
            contents.todos.append(todo)
        }
        return contents
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
