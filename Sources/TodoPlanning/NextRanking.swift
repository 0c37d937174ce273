import Foundation

/// The one order of `todo next` and the app's Next view: urgency, highest first; then the sooner due date; then the
/// title without case; then the ID, so the order is total and both rank the same todos the same way.
public enum NextRanking {
    /// What the order compares of one todo: its score, due date, title folded to lower case once, and ID.
    public struct Key: Sendable {
        /// The urgency score.
        public var score: Double
        /// The due date, if any.
        public var due: DueDate?
        /// The title in lower case (folded once, not at each comparison).
        public var foldedTitle: String
        /// The record name, the last word.
        public var id: String

        /// The key of a todo scored `score`.
        public init(score: Double, due: DueDate?, title: String, id: String) {
            self.score = score
            self.due = due
            foldedTitle = title.lowercased()
            self.id = id
        }
    }

    /// Whether `a` comes before `b`.
    public static func before(_ a: Key, _ b: Key) -> Bool {
        if a.score != b.score { return a.score > b.score }
        if let byDue = DueDate.soonerFirst(a.due, b.due) { return byDue }
        if a.foldedTitle != b.foldedTitle { return a.foldedTitle < b.foldedTitle }
        return a.id < b.id
    }
}
