import Foundation

/// The one order of `todo next` and the app's Next view: urgency, highest first; then the sooner due date; then the
/// title without case; then the ID, so the order is total and both rank the same todos the same way.
public enum NextRanking {
    /// What the order compares of one todo: its score, when it is due, its title and ID.
    public struct Key: Sendable {
        /// The urgency score.
        public var score: Double
        /// When it is due (`DueDate.localMoment`, worked out once), +infinity when it is not: none comes last.
        public var due: Double
        /// The title, folded to lower case only when two todos tie on score and due date (folding every title of
        /// 100,000 up front cost more than all the comparisons that need it).
        public var title: String
        /// The record name, the last word.
        public var id: String

        /// The key of a todo scored `score`.
        public init(score: Double, due: DueDate?, title: String, id: String) {
            self.score = score
            self.due = due?.localMoment ?? .infinity
            self.title = title
            self.id = id
        }
    }

    /// Whether `a` comes before `b`.
    public static func before(_ a: Key, _ b: Key) -> Bool {
        if a.score != b.score { return a.score > b.score }
        if a.due != b.due { return a.due < b.due }
        if a.title != b.title {
            let (x, y) = (a.title.lowercased(), b.title.lowercased())
            if x != y { return x < y }
        }
        return a.id < b.id
    }

    /// The positions of `keys` in this order: indices are sorted, not the keys (or the todos beside them), so a sort of
    /// 100,000 moves integers, and each comparison reads two keys in place.
    public static func order(_ keys: [Key]) -> [Int] {
        var indices = Array(keys.indices)
        keys.withUnsafeBufferPointer { keys in indices.sort { before(keys[$0], keys[$1]) } }
        return indices
    }
}
