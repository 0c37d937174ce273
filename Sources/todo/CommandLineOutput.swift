import ArgumentParser
import CloudClient
import Foundation
import Terminal
import TodoStore
import TodoSync
import TodoUI

// Everything the `todo` executable prints goes through this file: text from the data (titles, list and account
// names, the cloud's reasons) is made inert with `sanitize`, errors become plain sentences, and the process exits
// with one of the documented codes.

/// Prints a line for people, made inert: control characters, C1, DEL and bidi controls cannot act on the terminal,
/// and a newline inside a title cannot forge a line of output.
///
/// It shadows the standard library's `print` inside this executable, so every verb (and every verb added later)
/// prints through the sanitiser without having to remember it. Our own multi-line text uses `printTrusted`.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    Swift.print(sanitize(items.map { "\($0)" }.joined(separator: separator)), terminator: terminator)
}

/// Prints text this program wrote itself (a table, JSON with every control already escaped) as it is.
func printTrusted(_ text: String) {
    Swift.print(text)
}

/// Writes one line to standard error, made inert and worded for a person.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((sanitize(sentence(text)) + "\n").utf8))
}

/// The exit codes of every verb (README "Command line", todo(1) EXIT STATUS).
enum TodoExitCode {
    /// It worked (edits made offline included: they wait on this device and are sent later).
    static let success: Int32 = 0
    /// It failed: refused, not found, or the cloud answered with an error. The message says why.
    static let failure: Int32 = 1
    /// The command line was wrong: an unknown flag, a missing argument, a date that does not exist.
    static let usage: Int32 = 2
    /// The cloud could not be reached: nothing was lost, what waits is sent by a later `todo sync` (or any verb).
    static let offline: Int32 = 3
}

/// A mistake on the command line found while running (exit code 2).
struct UsageError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The first letter upper-cased, so every line starts the same way whoever wrote the words.
func sentence(_ text: String) -> String {
    guard let first = text.first, first.isLowercase else { return text }
    return first.uppercased() + text.dropFirst()
}

/// Words for a person about any error: no internal codes (`badRequest:`, `unknownItem:`), the cloud's reason kept.
func plainMessage(for error: any Error) -> String {
    switch error {
    case let error as CloudError: plainMessage(for: error)
    default: plainMessage(String(describing: error))
    }
}

/// Words for a cloud failure, by what a person can do about it.
func plainMessage(for error: CloudError) -> String {
    let reason = error.reason.isEmpty ? nil : error.reason
    func with(_ words: String) -> String { reason.map { "\(words): \($0)" } ?? words }
    switch error.code {
    case .networkUnavailable: return with("cannot reach the cloud")
    case .notAuthenticated: return with("not signed in")
    case .permissionFailure: return with("not allowed")
    case .unknownItem: return with("not found in the cloud")
    case .quotaExceeded: return with("the account's storage is full")
    case .limitExceeded: return with("too large for the cloud")
    case .requestRateLimited, .zoneBusy, .serviceUnavailable: return with("the cloud is busy; try again in a moment")
    case .serverRecordChanged: return with("it changed meanwhile on another device")
    case .zoneNotFound, .userDeletedZone, .changeTokenExpired: return with("the cloud's copy changed; run todo sync")
    case .referenceViolation: return with("it refers to a record that no longer exists")
    case .partialFailure, .batchRequestFailed: return with("some changes were refused")
    case .badRequest: return with("the cloud refused the request")
    case .internalError: return with("the cloud failed")
    case .invalidResponse: return with("the cloud answered something this version cannot read")
    }
}

/// A message that may start with a cloud error's code (`badRequest: …`, as the sync engine words its last error),
/// with that code replaced by words.
func plainMessage(_ text: String) -> String {
    for code in CloudError.Code.allCases where text.hasPrefix(code.rawValue + ": ") {
        return plainMessage(for: CloudError(code, String(text.dropFirst(code.rawValue.count + 2))))
    }
    return text
}

/// Whether an error means the cloud was out of reach (exit code 3).
func isOffline(_ error: any Error) -> Bool {
    if let error = error as? CloudError { return error.code == .networkUnavailable }
    let text = String(describing: error)
    return text.hasPrefix("offline") || text.hasPrefix(CloudError.Code.networkUnavailable.rawValue)
}

extension Todo {
    /// Runs the verb the arguments name; on failure prints one inert, plain message and exits with a documented code.
    static func main() async {
        let command: any ParsableCommand
        do {
            command = try parseAsRoot()
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
    private static func exitForRunError(_ error: any Error) -> Never {
        if let exit = error as? ExitCode { Foundation.exit(exit.rawValue) }
        if error is UsageError || error is DueDateError {
            printError("Error: " + sentence(plainMessage(for: error)))
            FileHandle.standardError.write(Data("See 'todo help' for the verbs and their options.\n".utf8))
            Foundation.exit(TodoExitCode.usage)
        }
        // Help asked for in a subcommand, and ArgumentParser's own validation errors, in its words.
        let code = exitCode(for: error)
        if code == .success || code == .validationFailure { exitForArgumentError(error) }
        printError("Error: " + sentence(plainMessage(for: error)))
        Foundation.exit(isOffline(error) ? TodoExitCode.offline : TodoExitCode.failure)
    }
}
