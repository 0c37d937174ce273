import Foundation
import Terminal

// What `todo` and `todo-server` print, and how they end: text from the data made inert, errors as plain sentences.

/// A failure a verb reports in words (exit code 1).
public struct DeviceCommandError: Error, CustomStringConvertible {
    /// The words, as the person reads them after `Error: `.
    public var description: String
    /// A failure worded `description`.
    public init(_ description: String) { self.description = description }
}

/// The exit codes of every verb (docs/USAGE.md "Command line", todo(1) EXIT STATUS).
public enum TodoExitCode {
    /// It worked (edits made offline included: they wait on this device and are sent later).
    public static let success: Int32 = 0
    /// It failed: refused, not found, or the cloud answered with an error. The message says why.
    public static let failure: Int32 = 1
    /// The command line was wrong: an unknown flag, a missing argument, a date that does not exist.
    public static let usage: Int32 = 2
    /// The cloud could not be reached: nothing was lost, what waits is sent by a later `todo sync` (or any verb).
    public static let offline: Int32 = 3
}

/// Prints `text` for people, made inert: control characters, C1, DEL and bidi controls cannot act on the terminal,
/// and a newline inside a title cannot forge a line of output. Each executable's `print` goes through it.
public func printInert(_ text: String, terminator: String = "\n") {
    Swift.print(sanitize(text), terminator: terminator)
}

/// Prints text this program wrote itself (a table, JSON with every control already escaped) as it is.
public func printTrusted(_ text: String) {
    Swift.print(text)
}

/// Writes one line to standard error, made inert and worded for a person.
public func printError(_ text: String) {
    // From the string's own bytes: `Data(_: some Sequence)` casts its argument dynamically, a conformance scan over
    // the whole binary at a command's first message.
    var line = sanitize(sentence(text)) + "\n"
    line.withUTF8 { FileHandle.standardError.write(Data(buffer: $0)) }
}

/// The first letter upper-cased, so every line starts the same way whoever wrote the words.
public func sentence(_ text: String) -> String {
    guard let first = text.first, first.isLowercase else { return text }
    return first.uppercased() + text.dropFirst()
}
