/// Text built by plain loops where the standard library's generic entry points (`joined(separator:)`,
/// `String.UnicodeScalarView(_:)`) would run unspecialised: the first such call in a process looks a conformance up by
/// scanning every one of the binary's ten thousand (0.5 M instructions, 3–4 % of a `todo list` over 1,000 todos).
extension Array where Element == String {
    /// The strings with `separator` between them, as `joined(separator:)` gives them.
    public func joinedText(_ separator: String) -> String {
        var text = ""
        for index in indices {
            if index > startIndex { text += separator }
            text += self[index]
        }
        return text
    }
}

extension String {
    /// The text of `scalars`, in order.
    public init(scalars: ArraySlice<Unicode.Scalar>) {
        self.init()
        unicodeScalars.reserveCapacity(scalars.count)
        for scalar in scalars { unicodeScalars.append(scalar) }
    }
}
