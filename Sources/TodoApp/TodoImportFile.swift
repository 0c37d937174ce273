import CloudModel
import Foundation
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
    public static func parse(_ bytes: some Collection<UInt8>, dueDate: (String) throws -> Date?) throws -> Contents {
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
        var dates: [String: Date?] = [:]
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
                    todo.dueDate = known
                } else {
                    do {
                        todo.dueDate = try dueDate(due)
                    } catch {
                        throw FormatError("entry \(number): \(error)")
                    }
                    dates[due] = todo.dueDate
                }
            }
            switch fields["priority"] {
            case nil, .null?: break
            case .int(let value)?: todo.priority = Int(min(max(value, 0), 3))
            case .double(let value)? where value == value.rounded(): todo.priority = Int(min(max(value, 0), 3))
            default: throw FormatError("entry \(number): \"priority\" must be a whole number, 0 to 3")
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
}
