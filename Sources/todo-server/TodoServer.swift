import ArgumentParser
import CommandLineSupport
import Foundation
import ProcessTuning

/// `todo-server`: the cloud's own executable, which `todo server …` runs. It is apart from `todo` so that every device
/// command starts without the cloud's code in its process: fewer pages to map and fewer conformances to search.
@main
enum TodoServer {
    /// Runs `todo server` with this process's arguments; on failure one inert, plain message and `todo`'s exit codes.
    static func main() async {
        MemoryTuning.apply()
        let command: any ParsableCommand
        do {
            command = try ServerCommand.parseAsRoot()
        } catch {
            ServerCommand.exitForArgumentError(error)
        }
        do {
            try await ServerCommand.run(parsed: command)
        } catch {
            ServerCommand.exitForArgumentParserOutcome(error)
            printError("Error: " + String(describing: error))
            Foundation.exit(TodoExitCode.failure)
        }
    }
}
