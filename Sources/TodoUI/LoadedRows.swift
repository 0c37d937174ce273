/// Every row read so far from the cache, split by tab and sorted where it was made (off the main actor), so the
/// key loop only swaps it in (`AppState.replaceRows(with:status:)`): sorting 100,000 rows there would hold up
/// every key pressed meanwhile.
public struct LoadedRows: Sendable {
    /// Each tab's rows, sorted in `order`.
    var tabs: [Tab: TabRows] = [:]
    /// The order the rows are sorted in.
    public let order: SortOrder
    /// Number of rows, of every tab.
    public private(set) var count = 0

    /// The capacity a row array meant to hold `count` rows is given: an eighth more, so rows that arrive later merge
    /// in place (`TabRows.merge`) instead of copying every row to grow, which held them twice for a moment. Room never
    /// written to costs no memory: arrays this large are mapped apart, and unwritten pages are never given memory.
    public static func capacity(for count: Int) -> Int { count + count / 8 }

    /// Sorts `rows` (all scopes) into tabs in `order`, the order the state will show (else it sorts them again).
    public init(_ rows: consuming [TodoRow], order: SortOrder) {
        self.order = order
        add(rows)
    }

    /// Sorts rows read after those here into them (rows of any scope, none of them here already): merged into each
    /// tab's sorted rows, or all of the tab sorted again when lists come (their todos regroup) or when more rows
    /// come than the tab holds. The rows come out the same whatever order the takes were added in.
    public mutating func add(_ rows: consuming [TodoRow]) {
        count += rows.count
        var partitions = AppState.partition(consume rows)
        for tab in Tab.allCases {
            guard let added = partitions.removeValue(forKey: tab) else { continue }
            guard var data = tabs.removeValue(forKey: tab) else {
                tabs[tab] = TabRows(added, order: order)
                continue
            }
            if added.count >= data.rows.count || added.contains(where: \.isList) {
                var all = data.rows
                data = TabRows()  // `all` holds the only copy of the rows, so appending moves none
                all.append(contentsOf: added)
                data = TabRows(all, order: order)
            } else {
                data.merge(dropping: [], adding: added)
            }
            tabs[tab] = data
        }
    }
}
