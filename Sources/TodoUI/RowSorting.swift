#if canImport(Glibc)
import Glibc
#endif

/// Sorts rows for display: incomplete first, then priority (high first), due date (soonest
/// first, none last), title (case-insensitive), and record name to make the order total.
public func sortedForDisplay(_ rows: [TodoRow]) -> [TodoRow] {
    TabRows(rows.filter { !$0.isList }).rows
}

/// True when `a` (whose lowercased title is `aKey`) is listed before `b`.
func displayOrder(_ a: TodoRow, _ aKey: UnsafeBufferPointer<UInt8>, _ b: TodoRow, _ bKey: UnsafeBufferPointer<UInt8>) -> Bool {
    if a.isCompleted != b.isCompleted { return !a.isCompleted }
    if a.priority != b.priority { return a.priority > b.priority }
    switch (a.dueDate, b.dueDate) {
    case let (x?, y?) where x != y: return x < y
    case (.some, nil): return true
    case (nil, .some): return false
    default: break
    }
    let titles = compareBytes(aKey, bKey)
    if titles != 0 { return titles < 0 }
    return a.id < b.id
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
