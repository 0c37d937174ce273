import ArgumentParser
import CloudClient
import CommandLineSupport
import Foundation
import ProcessTuning
import Terminal
import TodoStore

// How the process ends: one inert, plain message on failure and a documented exit code.


extension Todo {
    /// Runs the verb the arguments name; on failure prints one inert, plain message and exits with a documented code.
    static func main() async {
        MemoryTuning.apply()
        // The cloud is its own executable: everything after `server`, `--help` included, is its to read.
        if CommandLine.arguments.dropFirst().first == "server" {
            do {
                try ServerForward.exec(Array(CommandLine.arguments.dropFirst(2)))
            } catch {
                exitForRunError(error)
            }
        }
        // A shell asking for completions (IDs, lists, tags read from the cache): ArgumentParser answers it itself.
        if CommandLine.arguments.dropFirst().first == "---completion" {
            await main(Array(CommandLine.arguments.dropFirst()))
            return
        }
        if let unknown = unknownVerbMessage(Array(CommandLine.arguments.dropFirst())) {
            printError("Error: " + unknown)
            Foundation.exit(TodoExitCode.usage)
        }
        let command: any ParsableCommand
        do {
            command = try parseAsRoot()
            // The terminal app lives long and holds its rows: its own allocator settings (see `applyForApp`).
            if command is Open { MemoryTuning.applyForApp() }
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
        } catch {
            exitForRunError(error)
        }
    }

    /// Help, version, and mistakes on the command line: ArgumentParser's words, exit code 0 or 2.
    private static func exitForArgumentError(_ error: any Error) -> Never {
        let code = exitCode(for: error)
        let message = fullMessage(for: error)
        if code == .success {
            printTrusted(message)
            Foundation.exit(TodoExitCode.success)
        }
        for line in message.split(separator: "\n", omittingEmptySubsequences: false) {
            let text = line.hasPrefix("Error: ") ? "Error: " + sentence(String(line.dropFirst(7))) : String(line)
            FileHandle.standardError.write(Data((sanitize(text) + "\n").utf8))
        }
        Foundation.exit(code == .validationFailure ? TodoExitCode.usage : code.rawValue)
    }

    /// A failure while running a verb.
    static func exitForRunError(_ error: any Error) -> Never {
        if let exit = error as? ExitCode { Foundation.exit(exit.rawValue) }
        // Help asked for in a subcommand, and ArgumentParser's own validation errors, in its words.
        let code = exitCode(for: error)
        if code == .success || code == .validationFailure { exitForArgumentError(error) }
        if let storage = storageFailure(error) {
            printError("Error: " + sentence(unsavedChangeMessage(storage)))
            Foundation.exit(TodoExitCode.failure)
        }
        printError("Error: " + sentence(plainMessage(for: error)))
        if let ambiguous = error as? AmbiguousTodoName {
            for line in ambiguous.candidateLines { FileHandle.standardError.write(Data((sanitize(line) + "\n").utf8)) }
        }
        Foundation.exit(isOffline(error) ? TodoExitCode.offline : TodoExitCode.failure)
    }
}
