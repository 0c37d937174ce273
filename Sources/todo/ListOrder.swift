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

    private func precedes(_ a: ListedTodo, _ b: ListedTodo, _ scores: (Double, Double)?) -> Bool {
        let x = a.item
        let y = b.item
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
            let first = x.system.created?.timestamp ?? Int64.min
            let second = y.system.created?.timestamp ?? Int64.min
            if first != second { return first > second }  // newest first, unknown last
        case .title:
            break
        }
        let titles = x.title.localizedCaseInsensitiveCompare(y.title)
        if titles != .orderedSame { return titles == .orderedAscending }
        return x.key.recordName < y.key.recordName
    }
}
