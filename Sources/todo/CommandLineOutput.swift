import CloudClient
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
