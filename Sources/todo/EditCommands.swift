import ArgumentParser
import CloudModel
import Foundation
import TodoPlanning
import TodoStore
import TodoSync

/// `todo edit ID... | --filter FILTER [--title] [--notes] [--due] [--priority] [--tag]... [--untag]... [--repeat|--no-repeat]`.
struct Edit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit", abstract: "Change fields of one or more todos (by ID, or every todo a filter matches).")

    @OptionGroup var device: DeviceOptionGroup

    @OptionGroup var output: QuietOption

    @Argument(help: "The todos' IDs, as `todo list` shows them (or the first 4 characters or more of each, when no other ID starts so).", completion: CacheCompletion.ids)
    var ids: [String] = []

    @Option(help: "Edit every open todo of yours this filter matches instead (the syntax of todo list, quoted as one argument).")
    var filter: String?

    @Option(help: "New title.")
    var title: String?

    @Option(help: "New notes.")
    var notes: String?

    @Option(help: "New priority, 0 to 3.")
    var priority: Int?

    @OptionGroup var planning: PlanningOptions

    @OptionGroup var dates: DateFieldOptions

    @OptionGroup var dependencies: DependencyOptions

    @OptionGroup var project: ProjectOption

    func validate() throws {
        if let priority, !(0...3).contains(priority) { throw ValidationError("--priority must be 0 to 3") }
        if title == nil && notes == nil && priority == nil && planning.isEmpty && dates.isEmpty && dependencies.isEmpty && project.project == nil {
            throw ValidationError(
                "say what to change: --title, --notes, --due, --priority, --tag, --untag, --repeat, --no-repeat, --wait, --scheduled, --until, --depends, --no-depends or --project")
        }
        if ids.isEmpty == (filter == nil) { throw ValidationError("name the todos: one or more IDs, or --filter (not both)") }
        if let filter { _ = try parseFilter([filter]) }
        try checkTodoNames(ids)
    }

    func run() async throws {
        var edit = try planning.edit(title: title, notes: notes, priority: priority)
        try dates.apply(to: &edit)
        let selection = try filter.map { try parseFilter([$0]) }
        var count = 0
        var steps: [UndoStep] = []
        var titles: [String] = []
        try await device.withTodos(ids: ids, filter: selection) { session, item in
            var edit = edit
            try await dependencies.apply(to: &edit, for: item, in: session)
            var saved = try await session.engine.edit(item.key, edit)
            if project.project != nil {
                let target = try await project.list(in: session)
                if target?.key.recordName != saved.listName { saved = try await session.engine.move(saved.key, toList: target?.key) }
            }
            count += 1
            if saved.fields != item.fields {
                steps.append(.restore(item.key, KeptFields(item)))
                titles.append(quoted(item))
            }
            if selection == nil { output.say(saved.fields == item.fields ? "\(quoted(item)) already had that" : "Edited \(quoted(saved))") }
        } finish: { session in
            session.remember("edited " + (titles.count == 1 ? titles[0] : "\(titles.count) todos"), steps)
        }
        if selection != nil { output.say("Edited \(count) todo\(count == 1 ? "" : "s")") }
    }
}

/// `todo annotate ID TEXT`: adds a timestamped note.
struct Annotate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "annotate", abstract: "Add a timestamped note to a todo.")

    @OptionGroup var device: DeviceOptionGroup

    @OptionGroup var output: QuietOption

    @Argument(help: "The todo's ID, as `todo list` shows it (or its first 4 characters or more).", completion: CacheCompletion.ids)
    var id: String

    @Argument(help: "The note (words after the ID are joined with spaces).")
    var text: [String]

    func validate() throws {
        try checkTodoNames([id])
        let joined = text.joined(separator: " ")
        guard !joined.trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("the note must not be empty") }
        guard joined.count <= 10_000 else { throw ValidationError("a note has at most 10,000 characters") }
    }

    func run() async throws {
        let note = Annotation(entry: Date(), text: text.joined(separator: " "))
        try await device.withTodo(id) { session, item in
            _ = try await session.engine.edit(item.key, TodoEdit(annotate: [note]))
            session.remember("annotated \(quoted(item))", [.none("an annotation cannot be taken back: annotations are only ever added")])
            output.say("Annotated \(quoted(item))")
        }
    }
}

/// `todo skip ID`: skips one occurrence of a repeating todo.
struct Skip: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "skip", abstract: "Skip an occurrence of a repeating todo: it goes to the trash and the next one is made.")

    @OptionGroup var device: DeviceOptionGroup

    @OptionGroup var output: QuietOption

    @Argument(help: "The todo's ID, as `todo list` shows it (or its first 4 characters or more).", completion: CacheCompletion.ids)
    var id: String

    func validate() throws { try checkTodoNames([id]) }

    func run() async throws {
        try await device.withTodo(id) { session, item in
            let next = try await session.engine.skip(item.key)
            session.remember("skipped \(quoted(item))", [.unskip(item.key)])
            if let next {
                output.say("Skipped \(quoted(item)); next occurrence " + (next.due.map { dueWords($0) } ?? "made") + " (\(next.shortID))")
            } else {
                output.say("Skipped \(quoted(item)); that was the last occurrence: the series ends")
            }
        }
    }
}
