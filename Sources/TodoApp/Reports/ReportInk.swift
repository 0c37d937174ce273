import Foundation

/// How a report printed to the terminal is coloured: ANSI colours on a terminal, plain text under `NO_COLOR`
/// (no-color.org: set and not empty), with `TERM=dumb`, or when standard output is not a terminal.
public struct ReportInk: Sendable, Hashable {
    /// Whether escape sequences are written.
    public var colour: Bool

    /// Colour on (`true`) or plain text.
    public init(colour: Bool) { self.colour = colour }

    /// Plain text.
    public static let plain = ReportInk(colour: false)

    /// The ink for standard output in this environment.
    public static func forStandardOutput(environment: [String: String] = ProcessInfo.processInfo.environment) -> ReportInk {
        let noColour = !(environment["NO_COLOR"] ?? "").isEmpty
        let dumb = environment["TERM"].map { $0.isEmpty || $0 == "dumb" } ?? true
        return ReportInk(colour: !noColour && !dumb && isatty(STDOUT_FILENO) == 1)
    }

    /// `text` in `role`'s colour (as is when plain).
    public func paint(_ text: String, _ role: Role) -> String {
        guard colour, !text.isEmpty else { return text }
        return "\u{1B}[" + role.parameters + "m" + text + "\u{1B}[0m"
    }

    /// What a piece of a report stands for, and so its colour.
    public enum Role: Sendable {
        /// Done: green.
        case done
        /// Still to do: yellow.
        case pending
        /// Started, not done (active): blue.
        case started
        /// Overdue: bold red.
        case overdue
        /// Today: reverse video, bold.
        case today
        /// Headings: bold.
        case heading
        /// Axes, legends and empty parts of a bar: dim.
        case muted
        /// Something due: bold cyan.
        case due

        var parameters: String {
            switch self {
            case .done: "32"
            case .pending: "33"
            case .started: "34"
            case .overdue: "1;31"
            case .today: "1;7"
            case .heading: "1"
            case .muted: "2"
            case .due: "1;36"
            }
        }
    }
}

/// Text padded with spaces on the right to `width` columns (never cut).
func padded(_ text: String, _ width: Int) -> String {
    text + String(repeating: " ", count: max(0, width - text.count))
}

/// Text padded with spaces on the left to `width` columns (never cut).
func rightAligned(_ text: String, _ width: Int) -> String {
    String(repeating: " ", count: max(0, width - text.count)) + text
}
