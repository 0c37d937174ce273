#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's character type, which ncurses reads and writes text with.
public enum TextLocale {
    /// UTF-8 locales tried, in order, when the environment names a locale that is not UTF-8 (`LANG=C`).
    public static let fallbacks = ["C.UTF-8", "C.utf8", "en_US.UTF-8"]

    /// Takes the locale from the environment; if its character type is not UTF-8, switches the character
    /// type to the first UTF-8 fallback that exists. Returns false when none does.
    ///
    /// Call it once at start-up, before other threads read the locale (setlocale is process-wide).
    @discardableResult
    public static func useUTF8() -> Bool {
        setlocale(LC_ALL, "")
        if isUTF8 { return true }
        for name in fallbacks where setlocale(LC_CTYPE, name) != nil {
            if isUTF8 { return true }
        }
        return false
    }

    /// True when the current character type is UTF-8.
    public static var isUTF8: Bool {
        guard let codeset = nl_langinfo(nl_item(CODESET)) else { return false }
        let name = String(cString: codeset).uppercased()
        return name == "UTF-8" || name == "UTF8"
    }
}

/// Why the terminal app cannot run on this terminal, in one line for a person.
public struct TerminalUnavailable: Error, CustomStringConvertible, Sendable {
    /// The reason, with what to do instead.
    public var description: String

    /// A reason; the advice to use the command-line verbs is added.
    public init(_ reason: String) {
        description = reason + "; use a terminal such as xterm-256color, or the command line (todo list, todo add)"
    }
}
