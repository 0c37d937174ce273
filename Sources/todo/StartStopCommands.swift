import ArgumentParser
import CommandLineSupport
import Foundation
import TodoStore
import TodoSync

/// `todo start ID`: marks a todo active (being worked on now), as Taskwarrior's `start`.
struct StartTodo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "start", abstract: "Start work on a todo: it is active, shown first with how long, until todo stop or todo done.")

    @OptionGroup var device: DeviceOptionGroup

    @OptionGroup var output: QuietOption

    @Argument(help: "The todo's ID, as `todo list` shows it (or its first 4 characters or more).", completion: CacheCompletion.ids)
    var id: String

    func validate() throws { try checkTodoNames([id]) }

    func run() async throws {
        try await device.withTodo(id) { session, item in
            guard !item.isCompleted else { throw DeviceCommandError("\(quoted(item)) is done: reopen it with todo done --undo first") }
            guard let since = item.start else {
                _ = try await session.engine.edit(item.key, TodoEdit(start: .some(Date())))
                session.remember("started \(quoted(item))", [.restore(item.key, KeptFields(item))])
                output.say("Started \(quoted(item))")
                return
            }
            output.say("\(quoted(item)) is active already (for \(activeSpan(since: since)))")
        }
    }
}

/// `todo stop ID`: ends work on a todo (no longer active); it stays open.
struct StopTodo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stop", abstract: "Stop work on a todo: no longer active; it stays open.")

    @OptionGroup var device: DeviceOptionGroup

    @OptionGroup var output: QuietOption

    @Argument(help: "The todo's ID, as `todo list` shows it (or its first 4 characters or more).", completion: CacheCompletion.ids)
    var id: String

    func validate() throws { try checkTodoNames([id]) }

    func run() async throws {
        try await device.withTodo(id) { session, item in
            guard let since = item.start else {
                output.say("\(quoted(item)) is not active")
                return
            }
            _ = try await session.engine.edit(item.key, TodoEdit(start: .some(nil)))
            session.remember("stopped \(quoted(item))", [.restore(item.key, KeptFields(item))])
            output.say("Stopped \(quoted(item)) after \(activeSpan(since: since))")
        }
    }
}
