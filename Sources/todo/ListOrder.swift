import CloudModel
import Foundation
import TodoPlanning
import TodoStore
import TodoUI

/// The order `todo list` prints todos in: open before done, trashed last, then by the sort saved in config.toml
/// (by due date, then priority, when none is saved), then by title and ID so the order is total.
struct ListOrder {
    var order: TodoUI.SortOrder

    /// The saved order, else by due date.
    init(_ saved: TodoUI.SortOrder?) { order = saved ?? .due }

    /// `todos` in this order.
    func sorted(_ todos: [ListedTodo]) -> [ListedTodo] {
        todos.sorted(by: precedes)
    }

    private func precedes(_ a: ListedTodo, _ b: ListedTodo) -> Bool {
        let x = a.item
        let y = b.item
        if x.isTrashed != y.isTrashed { return !x.isTrashed }
        if x.isCompleted != y.isCompleted { return !x.isCompleted }
        switch order {
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
