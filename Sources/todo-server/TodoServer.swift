import ArgumentParser
import CommandLineSupport
import Foundation
import ProcessTuning
import Terminal

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
            exitForArgumentError(error)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                var syncCommand = command
                try syncCommand.run()
            }
        } catch let exit as ExitCode {
            Foundation.exit(exit.rawValue)
        } catch {
            let code = ServerCommand.exitCode(for: error)
            if code == .success || code == .validationFailure { exitForArgumentError(error) }
            printError("Error: " + String(describing: error))
            Foundation.exit(TodoExitCode.failure)
        }
    }

    /// Help and mistakes on the command line: ArgumentParser's words, exit code 0 or 2.
    private static func exitForArgumentError(_ error: any Error) -> Never {
        let code = ServerCommand.exitCode(for: error)
        let message = ServerCommand.fullMessage(for: error)
        if code == .success {
            printTrusted(message)
            Foundation.exit(TodoExitCode.success)
        }
        FileHandle.standardError.write(Data((sanitize(message) + "\n").utf8))
        Foundation.exit(code == .validationFailure ? TodoExitCode.usage : code.rawValue)
    }
}
