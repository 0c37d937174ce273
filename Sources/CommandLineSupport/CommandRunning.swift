import ArgumentParser
import Foundation
import Terminal

// How both executables run the command ArgumentParser parsed, and how they end on its own outcomes.

extension ParsableCommand {
    /// Runs `command`, as `parseAsRoot()` returned it, whether it is async or not.
    public static func run(parsed command: any ParsableCommand) async throws {
        if var asyncCommand = command as? any AsyncParsableCommand {
            try await asyncCommand.run()
        } else {
            var syncCommand = command
            try syncCommand.run()
        }
    }

    /// Help, version, and mistakes on the command line: ArgumentParser's words made inert, exit code 0 or 2.
    public static func exitForArgumentError(_ error: any Error) -> Never {
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

    /// Ends the process for ArgumentParser's own outcomes that surface while a command runs (an `ExitCode`, help
    /// asked for in a subcommand, a validation error); returns for every other failure, which the caller words.
    public static func exitForArgumentParserOutcome(_ error: any Error) {
        if let exit = error as? ExitCode { Foundation.exit(exit.rawValue) }
        let code = exitCode(for: error)
        if code == .success || code == .validationFailure { exitForArgumentError(error) }
    }
}
