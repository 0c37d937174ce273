/// The rule for tag names, one for the app, the command line and imports: a tag is a word people type after `+`.
public enum TagName {
    /// Longest tag, in characters.
    public static let maximumLength = 64

    /// Whether `text` is all printable ASCII without a space: no whitespace, control or format character, so the
    /// checks and rewrites of tags need no Unicode property table for it (nearly every tag).
    static func isVisibleASCII(_ text: some StringProtocol) -> Bool { text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F } }

    /// The tag `text` names (a leading `+` dropped), or an error saying why it cannot be one.
    public static func read(_ text: String) throws(TagError) -> String {
        // Printable ASCII (nearly every tag) is one character per byte and has no space, control or format character:
        // it is measured and searched byte by byte, without grapheme breaking or Unicode's property tables (an import
        // read each tag's characters twice: 12 k instructions a todo).
        let ascii = isVisibleASCII(text)
        var tag = Substring(text)
        if tag.first == "+" { tag = tag.dropFirst() }
        guard !tag.isEmpty else { throw TagError(text: text, problem: "a tag needs at least one character") }
        guard (ascii ? tag.utf8.count : tag.count) <= maximumLength else {
            throw TagError(text: text, problem: "a tag has at most \(maximumLength) characters")
        }
        if tag.first == "-" { throw TagError(text: text, problem: "a tag cannot start with -") }
        if ascii {
            if let refused = tag.utf8.first(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") }) {
                throw TagError(text: text, problem: "a tag cannot contain \(Character(Unicode.Scalar(refused)))")
            }
            return String(tag)
        }
        for scalar in tag.unicodeScalars {
            if scalar.properties.isWhitespace { throw TagError(text: text, problem: "a tag is one word, without spaces") }
            if scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format {
                throw TagError(text: text, problem: "a tag cannot contain control characters")
            }
            if scalar == "," || scalar == "\"" { throw TagError(text: text, problem: "a tag cannot contain \(scalar)") }
        }
        return String(tag)
    }

    /// The tags of an imported or received list that follow the rule, each once (compared without case).
    public static func valid(_ tags: [String]) -> [String] {
        var seen = Set<String>()
        return tags.compactMap { try? read($0) }.filter { seen.insert($0.lowercased()).inserted }
    }
}

/// A tag name that does not follow the rule.
public struct TagError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The text as given.
    public var text: String
    /// What is wrong.
    public var problem: String

    /// An error about `text`.
    public init(text: String, problem: String) {
        self.text = text
        self.problem = problem
    }

    /// "cannot use 'two words' as a tag: a tag is one word, without spaces".
    public var description: String { "cannot use '\(text)' as a tag: \(problem)" }
}
