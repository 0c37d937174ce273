import CloudClient
import CommandLineSupport
import Foundation
import Terminal

// Everything the `todo` executable prints goes through this file: text from the data (titles, list and account
// names, the cloud's reasons) is made inert with `sanitize`, and errors become plain sentences.

/// Prints a line for people, made inert: control characters, C1, DEL and bidi controls cannot act on the terminal,
/// and a newline inside a title cannot forge a line of output.
///
/// It shadows the standard library's `print` inside this executable, so every verb (and every verb added later)
/// prints through the sanitiser without having to remember it. Our own multi-line text uses `printTrusted`.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    printInert(items.map { "\($0)" }.joined(separator: separator), terminator: terminator)
}

/// `print` of one text, as the form above prints it, without boxing the text as `Any`, describing it through the
/// runtime's casts and joining a one-element array (whose generic `joined` cost a conformance scan, 0.5 M
/// instructions, at a process's first line).
func print(_ text: String, terminator: String = "\n") {
    printInert(text, terminator: terminator)
}

/// Whether an error means the cloud was out of reach (exit code 3).
func isOffline(_ error: any Error) -> Bool {
    if let error = error as? CloudError { return error.code == .networkUnavailable }
    let text = String(describing: error)
    return text.hasPrefix("offline") || text.hasPrefix(CloudError.Code.networkUnavailable.rawValue)
}
