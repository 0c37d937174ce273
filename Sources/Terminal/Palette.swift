// The colours of the colour roles, and how a configuration file's `[colors]` table changes them.

/// A terminal colour: one of the 256 indexed colours, or the terminal's own foreground colour.
public enum TerminalColor: Hashable, Sendable {
    /// The terminal's default foreground colour.
    case terminalDefault
    /// An indexed colour: 0–7 are black, red, green, yellow, blue, magenta, cyan and white; 8–255 need a terminal with that many.
    case indexed(UInt8)

    /// The names of the first eight indexed colours, in index order.
    public static let names = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"]

    /// The colour as a configuration file writes it: a name for the first eight and the default, else its number.
    public var name: String {
        switch self {
        case .terminalDefault: "default"
        case .indexed(let index): index < Self.names.count ? Self.names[Int(index)] : String(index)
        }
    }

    /// The colour number ncurses takes (-1 for the default).
    public var cursesNumber: Int16 {
        switch self {
        case .terminalDefault: -1
        case .indexed(let index): Int16(index)
        }
    }

    /// Reads a colour name (any case), `default`, or a number from 0 to 255; nil for anything else.
    public init?(parsing text: String) {
        let word = String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()).lowercased()
        if word == "default" {
            self = .terminalDefault
        } else if let index = Self.names.firstIndex(of: word) {
            self = .indexed(UInt8(index))
        } else if (1...3).contains(word.utf8.count), word.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let number = UInt8(word)
        {
            self = .indexed(number)
        } else {
            return nil
        }
    }
}

extension ColorRole {
    /// The role's name in a configuration file's `[colors]` table.
    public var name: String {
        switch self {
        case .accent: "accent"
        case .warning: "warning"
        case .error: "error"
        case .muted: "muted"
        case .success: "success"
        case .overdue: "overdue"
        case .today: "today"
        case .tag: "tag"
        }
    }
}

/// Why a `[colors]` table was refused.
public enum PaletteError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A name that is no colour role.
    case unknownRole(String)
    /// A value that is no colour, for this role.
    case unknownColor(role: ColorRole, value: String)

    /// One sentence: what is wrong, and what is accepted.
    public var description: String {
        switch self {
        case .unknownRole(let name):
            "\(quotedForMessage(name)) in [colors] is not a colour role; the roles are \(Palette.roleNames.joined(separator: ", "))."
        case .unknownColor(let role, let value):
            "\(role.name) = \(quotedForMessage(value)) in [colors] is not a colour; colours are "
                + "\(TerminalColor.names.joined(separator: ", ")), default or a number from 0 to 255."
        }
    }
}

/// The colour of every `ColorRole` (the foreground; the background stays the terminal's).
public struct Palette: Sendable, Hashable {
    private var colors: [ColorRole: TerminalColor]

    /// The app's own colours: cyan accents and today, yellow warnings, red errors and overdue dates, blue muted text and tags, green success.
    public static let standard = Palette(colors: [
        .accent: .indexed(6), .warning: .indexed(3), .error: .indexed(1), .muted: .indexed(4), .success: .indexed(2),
        .overdue: .indexed(1), .today: .indexed(6), .tag: .indexed(4),
    ])

    /// Every role's name in a `[colors]` table, in `ColorRole` order.
    public static let roleNames = ColorRole.allCases.map(\.name)

    private init(colors: [ColorRole: TerminalColor]) {
        self.colors = colors
    }

    /// The standard palette with the roles a `[colors]` table names (role name → colour name or number) changed.
    ///
    /// Throws the first problem: unknown role names first (in name order), then values that are no colour (in role order).
    public init(overrides: [String: String]) throws(PaletteError) {
        self = .standard
        let known = Set(Self.roleNames)
        if let unknown = overrides.keys.filter({ !known.contains($0) }).sorted().first {
            throw .unknownRole(unknown)
        }
        for role in ColorRole.allCases {
            guard let value = overrides[role.name] else { continue }
            guard let color = TerminalColor(parsing: value) else { throw .unknownColor(role: role, value: value) }
            colors[role] = color
        }
    }

    /// The colour of `role`.
    public subscript(role: ColorRole) -> TerminalColor {
        get { colors[role] ?? Self.standard.colors[role] ?? .terminalDefault }
        set { colors[role] = newValue }
    }
}
