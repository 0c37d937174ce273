import CloudModel
import Foundation
import TodoPlanning
import TodoStore
import TodoUI

/// The order `todo list` prints todos in: open before done, trashed last, then by the sort saved in config.toml
/// or given with `--sort` (by due date, then priority, when none is; `next` ranks by urgency as `todo next` does), then by title and ID so the order is total.
struct ListOrder {
    var order: TodoUI.SortOrder
    /// What the `next` order ranks with (nil for the others: no calendar or configuration is read for them).
    var urgency: Urgency?

    /// The saved order, else by due date; `urgency`, asked only for the `next` order, ranks it.
    init(_ saved: TodoUI.SortOrder?, urgency: () throws -> Urgency) rethrows {
        order = saved ?? .due
        self.urgency = order == .next ? try urgency() : nil
    }

    /// `todos` in this order (for `next`, each score computed once).
    func sorted(_ todos: [ListedTodo]) -> [ListedTodo] {
        let facts = todos.map { OrderFacts($0, score: urgency?.score($0.urgencyFacts) ?? 0) }
        return sortedIndices(facts, titles: TitleOrder.Prepared(todos.map(\.title)), names: todos.map(\.recordName)).map { todos[$0] }
    }

    /// `lines` in this order (for `next`, by the score each carries).
    func sorted(_ lines: [ListedLine]) -> [ListedLine] {
        sortedIndices(lines.map(\.facts), titles: TitleOrder.Prepared(lines.map(\.title)), names: lines.map(\.recordName)).map { lines[$0] }
    }

    /// The positions of `facts` in this order; titles and record names (the last two keys) compared by position.
    ///
    /// Each todo's keys are read once, into `OrderFacts` (plain values): compared in place, every comparison of
    /// the sort copied both todos' strings and asked the time zone for each all-day due date again.
    private func sortedIndices(_ facts: [OrderFacts], titles: TitleOrder.Prepared, names: [String]) -> [Int] {
        // The device's zone only for a list holding both all-day and timed due dates (`DueDate.orderingMoments`).
        let due = DueDate.orderingMoments(facts.map(\.due))
        return facts.indices.sorted { a, b in
            let (x, y) = (facts[a], facts[b])
            if x.isTrashed != y.isTrashed { return !x.isTrashed }
            if x.isCompleted != y.isCompleted { return !x.isCompleted }
            switch order {
            case .next:
                if x.score != y.score { return x.score > y.score }
                if let byDue = DueDate.soonerFirst(moments: due[a], due[b]) { return byDue }
            case .due:
                if let byDue = DueDate.soonerFirst(moments: due[a], due[b]) { return byDue }
                if x.priority != y.priority { return x.priority > y.priority }
            case .priority:
                if x.priority != y.priority { return x.priority > y.priority }
                if let byDue = DueDate.soonerFirst(moments: due[a], due[b]) { return byDue }
            case .created:
                let first = x.created ?? Int64.min
                let second = y.created ?? Int64.min
                if first != second { return first > second }  // newest first, unknown last
            case .title:
                break
            }
            let byTitle = titles.compare(a, b)
            if byTitle != .orderedSame { return byTitle == .orderedAscending }
            return names[a] < names[b]
        }
    }
}

/// What `ListOrder` compares of a todo before its title and record name, read once.
struct OrderFacts: Sendable {
    var isTrashed: Bool
    var isCompleted: Bool
    /// The due date (ordered by `DueDate.orderingMoments` over the whole list).
    var due: DueDate?
    var priority: Int
    /// When the cloud created it (ms since 1970), nil when not known.
    var created: Int64?
    /// Its urgency (compared in the `next` order only).
    var score: Double

    init(_ todo: ListedTodo, score: Double) {
        (isTrashed, isCompleted, due, priority) = (todo.item.isTrashed, todo.item.isCompleted, todo.item.due, todo.item.priority)
        created = todo.created
        self.score = score
    }
}

extension ListedTodo {
    var isTrashed: Bool { item.isTrashed }
    /// When the cloud created it (ms since 1970), nil when not known.
    var created: Int64? { item.system.created?.timestamp }
    var recordName: String { item.key.recordName }
}

/// One todo as `todo list` prints it, with only what its order compares: what a list of every todo keeps of each
/// row, made inside the cache's read (no copy of every todo is held).
struct ListedLine: Sendable {
    var line: String
    var isActive: Bool
    /// What its order compares before the title and record name (with its urgency for the `next` order, else 0).
    var facts: OrderFacts
    var title: String
    var recordName: String

    /// `todo`'s line and keys; `urgency` scores it when the order is `next`.
    init(_ todo: ListedTodo, urgency: Urgency?) {
        line = todoLine(todo)
        isActive = todo.item.isActive
        facts = OrderFacts(todo, score: urgency.map { $0.score(todo.urgencyFacts) } ?? 0)
        title = todo.title
        recordName = todo.recordName
    }
}
