import Foundation

/// What a filter reads of a todo: the UI's row and the store's item both conform.
public protocol Filterable {
    /// The title, searched by text terms.
    var title: String { get }
    /// The notes, searched by text terms.
    var notes: String { get }
    /// The tags, compared case-insensitively by `+tag` and `-tag`.
    var tags: [String] { get }
    /// The display name of the todo's list, nil when it is in none.
    var listName: String? { get }
    /// When it is due, nil when it has no due date.
    var due: DueDate? { get }
    /// 0 none, 1 low, 2 medium, 3 high.
    var priority: Int { get }
    /// Whether it is done.
    var isCompleted: Bool { get }
    /// Whether it repeats.
    var isRepeating: Bool { get }
    /// Hidden until then, nil when it does not wait.
    var wait: Date? { get }
    /// Not to be started before then, nil when not scheduled.
    var scheduled: Date? { get }
    /// Trashed by itself once past, nil when it never expires.
    var until: Date? { get }
    /// When it was started, nil when it is not active.
    var start: Date? { get }
    /// Whether it waits on an open todo.
    var isBlocked: Bool { get }
    /// Whether an open todo waits on it.
    var isBlocking: Bool { get }
    /// The texts of its annotations, searched by text terms as the title and notes are.
    var annotationTexts: [String] { get }
}

extension Filterable {
    /// None, unless the conforming type has it.
    public var wait: Date? { nil }
    /// None, unless the conforming type has it.
    public var scheduled: Date? { nil }
    /// None, unless the conforming type has it.
    public var until: Date? { nil }
    /// None, unless the conforming type has it.
    public var start: Date? { nil }
    /// False, unless the conforming type knows better.
    public var isBlocked: Bool { false }
    /// False, unless the conforming type knows better.
    public var isBlocking: Bool { false }
    /// None, for what has no annotations to search.
    public var annotationTexts: [String] { [] }
}
