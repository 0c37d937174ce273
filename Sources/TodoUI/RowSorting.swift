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

    /// The order the sort key switches to next: due, priority, created, title, due…
    public var next: SortOrder {
        switch self {
        case .due: .priority
        case .priority: .created
        case .created: .title
        case .title: .due
        }
    }

    /// What the tab bar and status line call it ("by due").
    public var label: String { "by " + rawValue }
}

/// Sorts rows for display in `order` (by default: incomplete first, then priority (high first), due date (soonest
/// first, none last), title (case-insensitive), and record name to make the order total).
public func sortedForDisplay(_ rows: [TodoRow], order: SortOrder = .priority) -> [TodoRow] {
    TabRows(rows.filter { !$0.isList }, order: order).rows
}

/// True when `a` (whose lowercased title is `aKey`) is listed before `b` in `order`.
func displayOrder(
    _ a: TodoRow, _ aKey: UnsafeBufferPointer<UInt8>, _ b: TodoRow, _ bKey: UnsafeBufferPointer<UInt8>, _ order: SortOrder = .priority
) -> Bool {
    if a.isCompleted != b.isCompleted { return !a.isCompleted }
    switch order {
    case .priority:
        if a.priority != b.priority { return a.priority > b.priority }
        if let byDue = dueOrder(a, b) { return byDue }
    case .due:
        if let byDue = dueOrder(a, b) { return byDue }
        if a.priority != b.priority { return a.priority > b.priority }
    case .created:
        let x = a.createdKey
        let y = b.createdKey
        if x != y { return x > y }  // newest first; unknown (Int64.min) last
    case .title:
        break
    }
    let titles = compareBytes(aKey, bKey)
    if titles != 0 { return titles < 0 }
    return a.id < b.id
}

/// Soonest due first, no due date last; nil when they tie (same moment, same kind).
private func dueOrder(_ a: TodoRow, _ b: TodoRow) -> Bool? {
    switch (a.dueDate, b.dueDate) {
    case let (x?, y?) where x != y: return x < y
    case (.some, nil): return true
    case (nil, .some): return false
    default: return nil
    }
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
