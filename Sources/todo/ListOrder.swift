import CloudModel
import CoreFoundation
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

    /// `lines` in this order (for `next`, by the score each carries); their titles are compared as
    /// `TitleOrder.Prepared` compares them.
    func sorted(_ lines: [ListedLine]) -> [ListedLine] {
        let titles = TitleOrder.Prepared(lines.map(\.title))
        return lines.indices.sorted { a, b in
            precedes(lines[a], lines[b], order == .next ? (lines[a].score, lines[b].score) : nil) { titles.compare(a, b) }
        }.map { lines[$0] }
    }

    private func precedes(
        _ x: some ListOrderKeys, _ y: some ListOrderKeys, _ scores: (Double, Double)?,
        titleOrder: () -> ComparisonResult = { .orderedSame }
    ) -> Bool {
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
        let titles = x is ListedLine ? titleOrder() : x.title.localizedCaseInsensitiveCompare(y.title)
        if titles != .orderedSame { return titles == .orderedAscending }
        return x.recordName < y.recordName
    }
}

/// Titles in `localizedCaseInsensitiveCompare`'s order, for sorting many: that call makes a CFLocale from the current
/// locale's identifier and bridges both strings anew for every comparison, which was half of `todo list`'s time over
/// 9,000 todos. Here the locale is made once and each title is bridged once; each comparison is the same
/// CoreFoundation call with the same options (case-insensitive, non-literal) that it makes.
enum TitleOrder {
    /// Titles made ready to be compared by position.
    struct Prepared {
        /// The titles as NSStrings, which CoreFoundation takes as CFStrings.
        private let strings: [NSString]
        private let lengths: [CFIndex]
        private let locale: CFLocale

        init(_ titles: [String]) {
            strings = titles.map { NSString(string: $0) }
            lengths = strings.map { CFIndex($0.length) }
            locale = CFLocaleCreate(kCFAllocatorSystemDefault, unsafeBitCast(NSString(string: Locale.current.identifier), to: CFString.self))
        }

        /// How the title at `a` compares with the one at `b`.
        func compare(_ a: Int, _ b: Int) -> ComparisonResult {
            // kCFCompareCaseInsensitive (1) and kCFCompareNonliteral (16), as NSString's compare adds with a locale.
            let flags = CFStringCompareFlags(rawValue: 1 | 16)
            let result = CFStringCompareWithOptionsAndLocale(
                unsafeBitCast(strings[a], to: CFString.self), unsafeBitCast(strings[b], to: CFString.self), CFRangeMake(0, lengths[a]), flags, locale)
            return result == .compareLessThan ? .orderedAscending : result == .compareGreaterThan ? .orderedDescending : .orderedSame
        }
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
