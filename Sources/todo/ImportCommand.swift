import ArgumentParser
import Foundation
import TodoApp
import TodoSync
import TodoUI

/// `todo import FILE`: adds the todos of a JSON file (e.g. `Resources/demo-todos.json`) in one transaction, then sends them.
struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Add todos from a JSON file: [{\"title\", \"notes\"?, \"due\"?, \"priority\"?, \"done\"?}].",
        discussion: """
            The todos are stored and queued in one transaction (all or none), then sent (not with --no-send). When \
            the cloud does not answer they stay queued: `todo sync` (or the app) sends them later.
            """)

    @OptionGroup var device: DeviceOptionGroup

    @Argument(help: "The JSON file.")
    var file: String

    @Flag(name: .shortAndLong, help: "No progress line.")
    var quiet = false

    @Flag(name: .customLong("no-send"), help: "Store and queue only; `todo sync` (or the app) sends them later.")
    var noSend = false

    func run() async throws {
        let bytes: Data
        do {
            bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw DeviceCommandError("cannot read \(file): \(error.localizedDescription)")
        }
        let contents: TodoImportFile.Contents
        do {
            contents = try TodoImportFile.parse(bytes, dueDate: { try parseDueDate($0) })
        } catch {
            throw DeviceCommandError("\(file): \(error)")
        }
        let progress = ProgressLine(enabled: !quiet)
        try await device.withSession { session in
            let total = contents.todos.count
            if total > 0 {
                progress.show("Adding todos: 0 of \(total)")
                try await session.engine.addTodos(contents.todos) { done in progress.show("Adding todos: \(done) of \(total)") }
            }
            progress.clear()
            print("Added " + Formatting.counted(total, "todo"))
            if contents.skippedUntitled > 0 {
                let skipped = contents.skippedUntitled
                printError("Skipped \(skipped) \(skipped == 1 ? "entry" : "entries") without a title")
            }
            guard total > 0 else { return }
            if noSend {
                printError("Not sent yet: \(await session.engine.status().pendingCount) pending; todo sync sends them")
                return
            }
            try await progress.whileSending(session) { try await sendAndReport(session) }
        }
    }
}
