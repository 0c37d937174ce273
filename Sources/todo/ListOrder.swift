import CloudModel
import Foundation
import TodoPlanning
import TodoStore
import TodoUI

/// The order `todo list` prints todos in: open before done, trashed last, then by the sort saved in config.toml
/// or given with `--sort` (by due date, then priority, when none is; `next` ranks by urgency as `todo next` does), then by title and ID so the order is total.
struct ListOrder {
    var order: TodoUI.SortOrder
    /// What the `next` order ranks with.
    var urgency: Urgency

    /// The saved order, else by due date; `urgency` ranks the `next` order.
    init(_ saved: TodoUI.SortOrder?, urgency: Urgency) {
        order = saved ?? .due
        self.urgency = urgency
    }

    /// `todos` in this order (for `next`, each score computed once).
    func sorted(_ todos: [ListedTodo]) -> [ListedTodo] {
        let scores = order == .next ? todos.map { urgency.score($0.urgencyFacts) } : []
        return todos.indices.sorted { precedes(todos[$0], todos[$1], scores.isEmpty ? nil : (scores[$0], scores[$1])) }.map { todos[$0] }
    }

    /// `lines` in this order (for `next`, by the score each carries).
    func sorted(_ lines: [ListedLine]) -> [ListedLine] {
        lines.sorted { precedes($0, $1, order == .next ? ($0.score, $1.score) : nil) }
    }

    private func precedes(_ x: some ListOrderKeys, _ y: some ListOrderKeys, _ scores: (Double, Double)?) -> Bool {
        if x.isTrashed != y.isTrashed { return !x.isTrashed }
        if x.isCompleted != y.isCompleted { return !x.isCompleted }
        switch order {
        case .next:
            if let (first, second) = scores, first != second { return first > second }
            if let byDue = DueDate.soonerFirst(x.due, y.due) { return byDue }
        case .due:
            if let byDue = DueDate.soonerFirst(x.due, y.due) { return byDue }
            if x.priority != y.priority { return x.priority > y.priority }
        case .priority:
            if x.priority != y.priority { return x.priority > y.priority }
            if let byDue = DueDate.soonerFirst(x.due, y.due) { return byDue }
        case .created:
            let first = x.created ?? Int64.min
            let second = y.created ?? Int64.min
            if first != second { return first > second }  // newest first, unknown last
        case .title:
            break
        }
        let titles = x.title.localizedCaseInsensitiveCompare(y.title)
        if titles != .orderedSame { return titles == .orderedAscending }
        return x.recordName < y.recordName
    }
}

/// What `ListOrder` compares of a todo.
protocol ListOrderKeys {
    var isTrashed: Bool { get }
    var isCompleted: Bool { get }
    var due: DueDate? { get }
    var priority: Int { get }
    /// When the cloud created it (ms since 1970), nil when not known.
    var created: Int64? { get }
    var title: String { get }
    var recordName: String { get }
}

extension ListedTodo: ListOrderKeys {
    var isTrashed: Bool { item.isTrashed }
    var created: Int64? { item.system.created?.timestamp }
    var recordName: String { item.key.recordName }
}

/// One todo as `todo list` prints it, with only what its order compares: what a list of every todo keeps of each
/// row, made inside the cache's read (no copy of every todo is held).
struct ListedLine: ListOrderKeys, Sendable {
    var line: String
    var isActive: Bool
    var isTrashed: Bool
    var isCompleted: Bool
    var due: DueDate?
    var priority: Int
    var created: Int64?
    var title: String
    var recordName: String
    /// Its urgency, for the `next` order (0 otherwise).
    var score: Double

    /// `todo`'s line and keys; `urgency` scores it when the order is `next`.
    init(_ todo: ListedTodo, urgency: Urgency?) {
        line = todoLine(todo)
        isActive = todo.item.isActive
        isTrashed = todo.item.isTrashed
        isCompleted = todo.item.isCompleted
        due = todo.item.due
        priority = todo.item.priority
        created = todo.created
        title = todo.title
        recordName = todo.recordName
        score = urgency.map { $0.score(todo.urgencyFacts) } ?? 0
    }
}
