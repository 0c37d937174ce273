import Foundation

/// The detail view of one todo.
public struct DetailView: Hashable, Sendable {
    /// The todo's row id.
    public var id: String
    /// First line shown.
    public var scroll = 0

    /// The details of the todo `id`, from the top.
    public init(id: String) { self.id = id }
}

/// A one-line prompt in the status line.
public struct Prompt: Hashable, Sendable {
    /// What the answer is for.
    public enum Purpose: Hashable, Sendable {
        /// Save the filter in effect under the typed name.
        case saveFilter
        /// Add the typed text as an annotation of this todo (then back to its details).
        case annotate(id: String)
        /// Add the typed tag to these todos.
        case addTag(ids: [String])
        /// Remove the typed tag from these todos.
        case removeTag(ids: [String])
        /// Set the typed priority on these todos.
        case priority(ids: [String])
        /// Sign in again as this account with the typed password (never drawn).
        case signIn(account: String)
    }

    /// What the answer is for.
    public var purpose: Purpose
    /// The answer being typed.
    public var editor = LineEditor()

    /// A prompt for `purpose`, empty.
    public init(_ purpose: Purpose) { self.purpose = purpose }

    /// The question, before the answer ("Save filter as:").
    public var question: String {
        switch purpose {
        case .saveFilter: "Save filter as:"
        case .annotate: "Annotate:"
        case .addTag(let ids): ids.count == 1 ? "Add tag:" : "Add tag to \(Formatting.counted(ids.count, "todo")):"
        case .removeTag(let ids): ids.count == 1 ? "Remove tag:" : "Remove tag from \(Formatting.counted(ids.count, "todo")):"
        case .priority(let ids): ids.count == 1 ? "Priority (0-3):" : "Priority (0-3) of \(Formatting.counted(ids.count, "todo")):"
        case .signIn(let account): "Password for \(account) (not shown; Enter signs in, Esc cancels):"
        }
    }

    /// Whether the answer is a secret: nothing of it is drawn, and it is taken as typed (spaces kept).
    public var isSecret: Bool {
        if case .signIn = purpose { return true }
        return false
    }
}
