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
        // The first character compared as a byte when every character is one (a Character comparison breaks graphemes).
        func startsWith(_ byte: UInt8) -> Bool { ascii ? tag.utf8.first == byte : tag.first == Character(Unicode.Scalar(byte)) }
        if startsWith(UInt8(ascii: "+")) { tag = tag.dropFirst() }
        guard !tag.isEmpty else { throw TagError(text: text, problem: "a tag needs at least one character") }
        guard (ascii ? tag.utf8.count : tag.count) <= maximumLength else {
            throw TagError(text: text, problem: "a tag has at most \(maximumLength) characters")
        }
        if startsWith(UInt8(ascii: "-")) { throw TagError(text: text, problem: "a tag cannot start with -") }
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
        FirstOccurrences.of(tags.compactMap { try? read($0) }, same: sameIgnoringCase, key: { $0.lowercased() })
    }

    /// Whether two tags are the same name, compared as their `lowercased()` forms are.
    static func sameIgnoringCase(_ first: String, _ second: String) -> Bool {
        // Two ASCII names lowercase byte by byte; any other character may lowercase to ASCII (the Kelvin sign to k).
        guard first.utf8.allSatisfy({ $0 < 0x80 }), second.utf8.allSatisfy({ $0 < 0x80 }) else {
            return first.lowercased() == second.lowercased()
        }
        func lower(_ byte: UInt8) -> UInt8 { byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte }
        return first.utf8.count == second.utf8.count && zip(first.utf8, second.utf8).allSatisfy { lower($0) == lower($1) }
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
