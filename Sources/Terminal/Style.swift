/// A semantic colour; the terminal maps it to a colour pair, or to an attribute without colours.
public enum ColorRole: Int, Hashable, Sendable, CaseIterable {
    /// Highlights: the app name, the active tab.
    case accent = 1
    /// Needs attention: confirmations, pending changes.
    case warning
    /// Something failed.
    case error
    /// Secondary information.
    case muted
    /// Something went well.
    case success
    /// Due dates that have passed (and the Today view's "Overdue" heading).
    case overdue
    /// Due dates that fall today.
    case today
    /// Tags shown beside titles (`+tag`).
    case tag
}

/// How a cell is drawn: attributes plus an optional colour role.
public struct Style: Hashable, Sendable {
    /// Bold text.
    public var bold: Bool
    /// Dim (faint) text.
    public var dim: Bool
    /// Reverse video (selection, cursor).
    public var reverse: Bool
    /// Underlined text.
    public var underline: Bool
    /// The colour role, or nil for the terminal's default colours.
    public var color: ColorRole?

    /// Creates a style; every attribute is off by default.
    public init(bold: Bool = false, dim: Bool = false, reverse: Bool = false, underline: Bool = false, color: ColorRole? = nil) {
        self.bold = bold
        self.dim = dim
        self.reverse = reverse
        self.underline = underline
        self.color = color
    }

    /// The terminal's default look.
    public static let plain = Style()
    /// Bold text.
    public static let bold = Style(bold: true)
    /// Dimmed text.
    public static let dim = Style(dim: true)
    /// Reverse video.
    public static let reverse = Style(reverse: true)
    /// Accent colour.
    public static let accent = Style(color: .accent)
    /// Warning colour.
    public static let warning = Style(color: .warning)
    /// Error colour, bold.
    public static let error = Style(bold: true, color: .error)
    /// Muted colour.
    public static let muted = Style(dim: true, color: .muted)

    /// This style with reverse video switched on.
    public var reversed: Style {
        var copy = self
        copy.reverse = true
        return copy
    }
}
