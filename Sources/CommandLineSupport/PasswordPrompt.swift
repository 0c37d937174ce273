import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Asks for a password on the controlling terminal without echoing it, or takes `$TODO_PASSWORD`.
public enum PasswordPrompt {
    /// The longest password read from the terminal, in bytes.
    public static let maximumLength = 4096

    /// `$TODO_PASSWORD` when set, else the answer typed at `prompt` on the terminal (echo off); `confirm` asks twice.
    public static func password(_ prompt: String, confirm: Bool = false, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws -> String
    {
        if let given = environment["TODO_PASSWORD"], !given.isEmpty { return given }
        let first = try readWithoutEcho(prompt)
        guard !first.isEmpty else { throw DeviceCommandError("no password given") }
        if confirm, try readWithoutEcho("Same password again: ") != first { throw DeviceCommandError("the two passwords differ") }
        return first
    }

    /// One line typed on /dev/tty with echo off (restored however the read ends).
    public static func readWithoutEcho(_ prompt: String) throws -> String {
        let tty = open("/dev/tty", O_RDWR | O_NOCTTY)
        guard tty >= 0 else { throw DeviceCommandError("no terminal to ask the password on: set $TODO_PASSWORD") }
        defer { close(tty) }
        var saved = termios()
        guard tcgetattr(tty, &saved) == 0 else { throw DeviceCommandError("cannot turn the terminal's echo off: set $TODO_PASSWORD") }
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        silent.c_lflag |= tcflag_t(ECHONL)
        _ = write(tty, prompt, prompt.utf8.count)
        guard tcsetattr(tty, TCSAFLUSH, &silent) == 0 else { throw DeviceCommandError("cannot turn the terminal's echo off") }
        defer { _ = tcsetattr(tty, TCSAFLUSH, &saved) }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(tty, &byte, 1) == 1 {
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { break }
            guard bytes.count < maximumLength else { throw DeviceCommandError("the password is longer than \(maximumLength) bytes") }
            bytes.append(byte)
        }
        guard let text = String(bytes: bytes, encoding: .utf8) else { throw DeviceCommandError("the password is not UTF-8 text") }
        return text
    }
}
