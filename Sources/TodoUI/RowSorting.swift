/// Sorts rows for display: incomplete first, then priority (high first), due date (soonest
/// first, none last), title (case-insensitive), and record name to make the order total.
///
/// Each title is lowercased once, so sorting 100,000 rows costs one sort, not one lowercase
/// per comparison.
public func sortedForDisplay(_ rows: [TodoRow]) -> [TodoRow] {
    let keys = rows.map { $0.title.lowercased() }
    let order = rows.indices.sorted { displayOrder(rows[$0], keys[$0], rows[$1], keys[$1]) }
    return order.map { rows[$0] }
}

/// True when `a` (whose lowercased title is `aKey`) is listed before `b`.
func displayOrder(_ a: TodoRow, _ aKey: String, _ b: TodoRow, _ bKey: String) -> Bool {
    if a.isCompleted != b.isCompleted { return !a.isCompleted }
    if a.priority != b.priority { return a.priority > b.priority }
    switch (a.dueDate, b.dueDate) {
    case let (x?, y?) where x != y: return x < y
    case (.some, nil): return true
    case (nil, .some): return false
    default: break
    }
    if aKey != bKey { return aKey < bKey }
    return a.id < b.id
}
