extension String {
    /// The text without the spaces and tabs around it: what Foundation's `trimmingCharacters(in: .whitespaces)`
    /// leaves (Unicode's space separators and the tab go; line breaks stay), read scalar by scalar. Foundation's
    /// trimming bridged the text to NSString, whose first use in a command cost 1.2 M instructions.
    public var trimmingSpacesAndTabs: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.isSpaceOrTab }), let last = scalars.lastIndex(where: { !$0.isSpaceOrTab })
        else { return "" }
        return String(scalars[first...last])
    }
}

extension Unicode.Scalar {
    /// A tab or a space separator (general category Zs), as `CharacterSet.whitespaces` holds them.
    fileprivate var isSpaceOrTab: Bool { self == "\t" || properties.generalCategory == .spaceSeparator }
}
