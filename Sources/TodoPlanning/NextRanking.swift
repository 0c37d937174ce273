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
            self.due = NextRanking.dueKey(due)
            self.title = title
            self.id = id
        }
    }

    /// What the order compares of a due date: `DueDate.localMoment`, +infinity for none (none comes last).
    public static func dueKey(_ due: DueDate?) -> Double { due?.localMoment ?? .infinity }

    /// Whether `a` comes before `b`.
    public static func before(_ a: Key, _ b: Key) -> Bool {
        if a.score != b.score { return a.score > b.score }
        if a.due != b.due { return a.due < b.due }
        return tieBefore(title: a.title, id: a.id, title: b.title, id: b.id)
    }

    /// Between two todos of the same score and due date: whether the first comes first, by title without case, then ID.
    static func tieBefore(title a: String, id first: String, title b: String, id second: String) -> Bool {
        if a != b {
            let (x, y) = (a.lowercased(), b.lowercased())
            if x != y { return x < y }
        }
        return first < second
    }

    /// The positions of todos in this order, given their scores and due keys (`dueKey`) by position; a title and an ID
    /// are asked for (`title(i)`, `id(i)`) only when two todos tie on both, so the todos are read in place and no key
    /// holds their strings: the Next view ranks 80,000 rows with 16 bytes each beside them.
    public static func order(scores: [Double], dues: [Double], title: (Int) -> String, id: (Int) -> String) -> [Int] {
        precondition(scores.count == dues.count, "a due key for each score")
        var indices = Array(scores.indices)
        scores.withUnsafeBufferPointer { scores in
            dues.withUnsafeBufferPointer { dues in
                indices.sort { a, b in
                    if scores[a] != scores[b] { return scores[a] > scores[b] }
                    if dues[a] != dues[b] { return dues[a] < dues[b] }
                    return tieBefore(title: title(a), id: id(a), title: title(b), id: id(b))
                }
            }
        }
        return indices
    }

    /// The positions of `keys` in this order: indices are sorted, not the keys (or the todos beside them), so a sort of
    /// 100,000 moves integers, and each comparison reads two keys in place.
    public static func order(_ keys: [Key]) -> [Int] {
        var indices = Array(keys.indices)
        keys.withUnsafeBufferPointer { keys in indices.sort { before(keys[$0], keys[$1]) } }
        return indices
    }
}
