import Foundation

/// What a context writes into a new todo (Taskwarrior 2.6's write context): the tags it asks for and its project.
public struct ContextWrite: Sendable, Hashable {
    /// The tags of its `+tag` terms, as typed.
    public var tags: [String]
    /// The project of its `project:` (or `list:`) term, as typed; nil when it names none.
    public var project: String?

    /// Whether it writes nothing.
    public var isEmpty: Bool { tags.isEmpty && project == nil }

    /// What a context writes: `tags` and `project`.
    public init(tags: [String], project: String?) {
        self.tags = tags
        self.project = project
    }
}

extension TodoFilter {
    /// What a todo added while this filter is the context takes from it: every `+tag`, and the first `project:` or
    /// `list:` that names a list. Other terms (words, `-tag`, dates, states) only read: a new todo cannot be made to
    /// match them by giving it a value, so they write nothing.
    public var contextWrite: ContextWrite {
        var write = ContextWrite(tags: [], project: nil)
        for part in parts {
            if part.hasPrefix("+") {
                let tag = Self.unquoted(part.dropFirst())
                if !write.tags.contains(where: { $0.caseInsensitiveCompare(tag) == .orderedSame }) { write.tags.append(tag) }
                continue
            }
            for key in ["project:", "list:"] where write.project == nil && part.hasPrefix(key) {
                let value = Self.unquoted(part.dropFirst(key.count))
                if value.lowercased() != "none", !value.isEmpty { write.project = value }
            }
        }
        return write
    }

    private static func unquoted(_ text: Substring) -> String {
        text.count >= 2 && text.hasPrefix("\"") && text.hasSuffix("\"") ? String(text.dropFirst().dropLast()) : String(text)
    }
}
