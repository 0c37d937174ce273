import Foundation
import TodoPlanning

#if canImport(Glibc)
import Glibc
#endif

/// How the todos of a tab are ordered (open todos always before done ones).
public enum SortOrder: String, Hashable, Sendable, CaseIterable {
    /// Priority (high first), then due (soonest first, none last), then title.
    case priority
    /// Due (soonest first, none last), then priority, then title.
    case due
    /// Created (newest first, unknown last), then title.
    case created
    /// Title (case-insensitive), alphabetically.
    case title
    /// `NextRanking`, as `todo next` and the Next view rank: urgency (highest first), then due, then title.
    case next

    /// The order the sort key switches to next: due, priority, created, title, next, due…
    public var next: SortOrder {
        switch self {
        case .due: .priority
        case .priority: .created
        case .created: .title
        case .title: .next
        case .next: .due
        }
    }

    /// What the tab bar and status line call it ("by due"; "by urgency" for next).
    public var label: String { self == .next ? "by urgency" : "by " + rawValue }
}

/// Sorts rows for display in `order` (by default: incomplete first, then priority (high first), due date (soonest
/// first, none last), title (case-insensitive), and record name to make the order total).
public func sortedForDisplay(_ rows: [TodoRow], order: SortOrder = .priority) -> [TodoRow] {
    TabRows(rows.filter { !$0.isList }, order: order).rows
}

/// True when `a` (whose lowercased title is `aKey`) is listed before `b` in `order`.
func displayOrder(
    _ a: TodoRow, _ aKey: UnsafeBufferPointer<UInt8>, _ b: TodoRow, _ bKey: UnsafeBufferPointer<UInt8>, _ order: SortOrder = .priority,
    ranking: NextSort? = nil
) -> Bool {
    withUnsafePointer(to: a) { a in withUnsafePointer(to: b) { b in displayOrder(a, aKey, b, bKey, order, ranking: ranking) } }
}

/// `displayOrder` of the rows at `x` and `y`, read in place (a sort of 100,000 rows compares about 1.7 million pairs:
/// copying each row retained its strings).
func displayOrder(
    _ x: UnsafePointer<TodoRow>, _ aKey: UnsafeBufferPointer<UInt8>, _ y: UnsafePointer<TodoRow>, _ bKey: UnsafeBufferPointer<UInt8>,
    _ order: SortOrder = .priority, ranking: NextSort? = nil
) -> Bool {
    if x.pointee.isCompleted != y.pointee.isCompleted { return !x.pointee.isCompleted }
    switch order {
    case .next:
        let ranking = ranking ?? NextSort.fallback
        return NextRanking.before(ranking.key(of: x.pointee), ranking.key(of: y.pointee))
    case .priority:
        if x.pointee.priority != y.pointee.priority { return x.pointee.priority > y.pointee.priority }
        if let byDue = DueDate.soonerFirst(x.pointee.due, y.pointee.due) { return byDue }
    case .due:
        if let byDue = DueDate.soonerFirst(x.pointee.due, y.pointee.due) { return byDue }
        if x.pointee.priority != y.pointee.priority { return x.pointee.priority > y.pointee.priority }
    case .created:
        let a = x.pointee.createdKey
        let b = y.pointee.createdKey
        if a != b { return a > b }  // newest first; unknown (Int64.min) last
    case .title:
        break
    }
    let titles = compareBytes(aKey, bKey)
    if titles != 0 { return titles < 0 }
    return TodoRow.idPrecedes(x.pointee, y.pointee)
}

/// Byte-wise order of two UTF-8 strings (the order of their code points): negative, zero or positive.
func compareBytes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
    let shared = min(a.count, b.count)
    if shared > 0, let x = a.baseAddress, let y = b.baseAddress {
        let order = memcmp(x, y, shared)
        if order != 0 { return Int(order) }
    }
    return a.count - b.count
}
