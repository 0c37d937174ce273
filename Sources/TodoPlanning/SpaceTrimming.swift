extension String {
    /// The text without the spaces and tabs around it: what Foundation's `trimmingCharacters(in: .whitespaces)`
    /// leaves (Unicode's space separators and the tab go; line breaks stay), read scalar by scalar. Foundation's
    /// trimming bridged the text to NSString, whose first use in a command cost 1.2 M instructions.
    public var trimmingSpacesAndTabs: String { trimming(while: \.isSpaceOrTab) }

    /// The text without the white space and line breaks around it, as `trimmingCharacters(in: .whitespacesAndNewlines)`
    /// leaves it, scalar by scalar (a due date typed in a filter paid NSString's bridging and four conformance scans).
    public var trimmingWhiteSpaceAndNewlines: String { trimming(while: \.isWhiteSpaceOrNewline) }

    /// The text without the scalars around it that `drops`.
    private func trimming(while drops: (Unicode.Scalar) -> Bool) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !drops($0) }), let last = scalars.lastIndex(where: { !drops($0) })
        else { return "" }
        return String(scalars[first...last])
    }
}

extension Unicode.Scalar {
    /// A tab or a space separator (general category Zs), as `CharacterSet.whitespaces` holds them; that set also
    /// holds the zero-width space U+200B (a format character), checked against it for every scalar.
    fileprivate var isSpaceOrTab: Bool { self == "\t" || self == "\u{200B}" || properties.generalCategory == .spaceSeparator }

    /// What `CharacterSet.whitespacesAndNewlines` holds: the tab, the line breaks U+000A–U+000D and U+0085, and
    /// Unicode's separators (space, line, paragraph), and U+200B as above.
    fileprivate var isWhiteSpaceOrNewline: Bool {
        switch value {
        case 0x09...0x0D, 0x85, 0x200B: return true
        case 0..<0x80: return value == 0x20
        default:
            switch properties.generalCategory {
            case .spaceSeparator, .lineSeparator, .paragraphSeparator: return true
            default: return false
            }
        }
    }
}
