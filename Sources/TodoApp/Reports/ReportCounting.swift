import Foundation
import TodoPlanning
import TodoStore

/// Which todos the reports per project and per tag count, and as what: one rule for `todo projects`, `todo tags`
/// and `todo summary`, so their numbers agree with each other and with Taskwarrior 2.6's `projects`, `tags` and
/// `summary`.
public enum ReportCounting {
    /// How a counted todo counts.
    public enum Standing: Sendable, Hashable {
        /// Not done: waiting and scheduled ones included, as Taskwarrior counts its waiting tasks as pending.
        case open
        /// Done.
        case done
    }

    /// How `item` counts at `now`; nil when it is left out: trashed, or past its `until` (the next sync trashes
    /// it, as Taskwarrior deletes an expired task before any report reads it).
    public static func standing(of item: TodoItem, at now: Date) -> Standing? {
        guard !item.isTrashed, !item.isExpired(at: now) else { return nil }
        return item.isCompleted ? .done : .open
    }
}

/// `todo tags`: each tag of an open todo with how many open todos carry it. Tags differing only in case or
/// composition count together, under the spelling met first.
public struct TagCounts: Sendable, Hashable {
    /// One tag and its count.
    public struct Row: Sendable, Hashable {
        /// The tag as first met.
        public var name: String
        /// Open todos carrying it.
        public var count: Int
    }

    /// The tags, by name ignoring case.
    public private(set) var rows: [Row]

    /// The counts over the tags of each open todo (one array per todo).
    public init(_ openTodosTags: [[String]]) {
        var counts: [String: Row] = [:]
        for tags in openTodosTags {
            // A todo carrying `Home` and `home` counts once under that tag.
            for key in Set(tags.map(foldedText)) { counts[key, default: Row(name: tags.first { foldedText($0) == key } ?? key, count: 0)].count += 1 }
        }
        rows = counts.values.sorted { a, b in
            let order = a.name.localizedCaseInsensitiveCompare(b.name)
            return order == .orderedSame ? a.name < b.name : order == .orderedAscending
        }
    }
}
