import ArgumentParser
import CloudModel
import CommandLineSupport
import Foundation
import TodoStore
import TodoSync

/// The words the command line uses for a field whose value lost a conflict, and back.
enum ConflictField {
    static let names: [String: String] = [
        "title": TodoItem.Field.title, "notes": TodoItem.Field.notes, "due": TodoItem.Field.dueDate,
        "priority": TodoItem.Field.priority, "done": TodoItem.Field.isCompleted, "trash": TodoItem.Field.isTrashed,
        "list": TodoItem.Field.list,
    ]

    /// The record field a command-line word (or a record field name) stands for.
    static func field(_ word: String) -> String? {
        names[word.lowercased()] ?? (names.values.contains(word) ? word : nil)
    }

    /// The command-line word of a record field.
    static func word(_ field: String) -> String { names.first { $0.value == field }?.key ?? field }

    /// One line per notice: the todo's ID, the field's word and the sentence.
    static func line(_ notice: ConflictNotice) -> String {
        "\(RecordNames.shortID(notice.key.recordName))  \(word(notice.edit.field).padding(toLength: 8, withPad: " ", startingAt: 0))  \(notice.sentence)"
    }
}

/// Prints the conflicts this device has not announced yet (one line each; for its own losses, how to restore them),
/// and notes them announced.
func printNewConflicts(_ session: DeviceSession, toStandardError: Bool = false) async throws {
    let notices = try await session.engine.conflicts(unannounced: true)
    for notice in notices {
        let restore = notice.isMine ? " (todo restore \(RecordNames.shortID(notice.key.recordName)) \(ConflictField.word(notice.edit.field)))" : ""
        let line = "conflict: \(notice.sentence)\(restore)"
        if toStandardError { printError(line) } else { print(line) }
    }
    try await session.engine.markAnnounced(notices)
}

/// `todo conflicts`: the values that lost conflicts and can still be restored.
struct Conflicts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conflicts",
        abstract: "List values that lost a conflict to a later edit (restore one with todo restore ID FIELD).")

    @OptionGroup var device: DeviceOptionGroup

    @Flag(help: "Do not ask the cloud; show the cache.")
    var offline = false

    @Flag(help: "Only the values this device's edits lost.")
    var mine = false

    func run() async throws {
        try await device.withFreshSession(offline: offline) { session in
            var notices = try await session.engine.conflicts()
            if mine { notices.removeAll { !$0.isMine } }
            if notices.isEmpty {
                print("No lost values")
                return
            }
            for notice in notices { print(ConflictField.line(notice)) }
            try await session.engine.markAnnounced(notices)
        }
    }
}

/// `todo restore ID [FIELD]`: puts a value that lost a conflict back, as a new edit.
struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Put back a value that lost a conflict (see todo conflicts); it is sent as a new, later edit.")

    @OptionGroup var device: DeviceOptionGroup

    @Argument(help: "The todo's ID, as `todo list` shows it (or its first 4 characters or more).")
    var id: String

    @Argument(help: "The field: title, notes, due, priority, done, trash or list (needed when several values lost).")
    var field: String?

    @Flag(help: "Drop the notice instead, keeping the value that won (on every device).")
    var dismiss = false

    func validate() throws {
        try checkTodoNames([id])
        if let field, ConflictField.field(field) == nil {
            throw ValidationError("unknown field '\(field)'; use title, notes, due, priority, done, trash or list")
        }
    }

    func run() async throws {
        try await device.withTodo(id, allowTrashed: true) { session, item in
            var notices = try await session.engine.conflicts().filter { $0.key == item.key }
            if let field, let name = ConflictField.field(field) { notices.removeAll { $0.edit.field != name } }
            guard let notice = notices.first else {
                throw DeviceCommandError("\(item.shortID) has no lost value\(field.map { " for \($0)" } ?? "") to restore")
            }
            guard notices.count == 1 else {
                let fields = Set(notices.map { ConflictField.word($0.edit.field) }).sorted().joined(separator: ", ")
                throw DeviceCommandError("several values of \(item.shortID) lost; say which: \(fields)")
            }
            if dismiss {
                try await session.engine.dismiss(notice)
                print("Dismissed: \(notice.sentence)")
            } else {
                try await session.engine.restore(notice)
                print("Restored \(ConflictField.word(notice.edit.field)) \(ConflictNotice.words(notice.edit.lost, notice.edit.field)) of '\(item.title)'")
            }
        }
    }
}
