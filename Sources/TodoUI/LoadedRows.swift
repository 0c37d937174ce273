/// Every row read so far from the cache, split by tab and sorted where it was made (off the main actor), so the
/// key loop only swaps it in (`AppState.replaceRows(with:status:)`): sorting 100,000 rows there would hold up
/// every key pressed meanwhile.
public struct LoadedRows: Sendable {
    /// Each tab's rows, sorted in `order`.
    var tabs: [Tab: TabRows] = [:]
    /// The order the rows were sorted in.
    let order: SortOrder
    /// Number of rows, of every tab.
    public let count: Int

    /// Sorts `rows` (all scopes) into tabs in `order`, the order the state will show (else it sorts them again).
    public init(_ rows: consuming [TodoRow], order: SortOrder) {
        self.order = order
        count = rows.count
        var partitions = AppState.partition(consume rows)
        for tab in Tab.allCases {
            if let part = partitions.removeValue(forKey: tab) { tabs[tab] = TabRows(part, order: order) }
        }
    }
}
