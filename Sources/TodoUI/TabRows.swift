import Foundation
import TodoPlanning

/// The rows of one tab, kept sorted, with their lowercased search text.
///
/// Lists group their todos: todos in no list come first, then each list heading (by title) followed by its
/// todos. Within a group rows keep the display order (`displayOrder`).
struct TabRows: Sendable {
    /// How the todos are ordered within their groups.
    private(set) var order: SortOrder = .priority
    /// What a `.next` order ranks with (nil: Taskwarrior's coefficients now, no dependencies); one value for the tab's
    /// whole life, so rows inserted later compare with the same scores as those sorted first.
    private(set) var ranking: NextSort?
    var rows: [TodoRow] = []
    /// The lowercased title and notes of each row, in row order.
    var search = SearchText()
    /// The group key of each list row by id.
    var listGroups: [String: String] = [:]
    /// The title of each list row by id (filters name lists by title).
    var listTitles: [String: String] = [:]
    /// Per row, whether it is a list heading (read in the filter pass without touching the rows).
    var headings: [Bool] = []
    /// Per row, the bits of its tags (`TagIndex`), read by the filter pass without touching the rows.
    var tagMasks: [UInt64] = []
    /// Incomplete todos per list id.
    var listOpenCounts: [String: Int] = [:]
    var openCount = 0

    init(_ unsorted: consuming [TodoRow] = [], order: SortOrder = .priority, ranking: NextSort? = nil) {
        self.order = order
        self.ranking = ranking
        var rows = unsorted
        for row in rows where row.isList {
            listGroups[row.id] = TabRows.groupKey(ofList: row)
            listTitles[row.id] = row.title
        }
        // The search text in arrival order gives the sort keys; sort indices, write the text again in the sorted
        // order, then permute the rows in place (no second copy of the rows).
        var arrival = SearchText()
        arrival.reserve(rows: rows.count, bytes: rows.count * 24)
        for row in rows { arrival.append(row) }
        // Groups compared as ranks (their order as strings): a sort of 100,000 rows compares integers, not strings.
        let groupNames = rows.indices.map { index -> String in
            // `group(of:)` by fields: passing the row would copy it.
            if rows[index].isList { return listGroups[rows[index].id] ?? "" }
            guard let listID = rows[index].listID else { return "" }
            return listGroups[listID] ?? ""
        }
        let ranks = Dictionary(uniqueKeysWithValues: Set(groupNames).sorted().enumerated().map { ($1, $0) })
        let groups = groupNames.map { ranks[$0] ?? 0 }
        // Each row's sort fields read once into plain values: a comparison reading the rows themselves copied them,
        // retaining their strings, about 1.7 million times for 100,000 rows.
        let next = order == .next ? ranking ?? NextSort.fallback : nil
        let keys = rows.indices.map { index in
            SortFields(rows[index], group: groups[index], order: order, ranking: next)
        }
        var sequence = Array(rows.indices)
        rows.withUnsafeBufferPointer { rows in
            arrival.withTitleKeys { key in
                sequence.sort { a, b in
                    if let decided = keys[a].precedes(keys[b]) { return decided }
                    let titles = compareBytes(key(a), key(b))
                    if titles != 0 { return titles < 0 }
                    return TodoRow.idPrecedes(rows[a], rows[b])
                }
            }
        }
        search.reserve(rows: rows.count, bytes: arrival.bytes.count)
        for index in sequence { search.append(row: index, of: arrival) }
        arrival = SearchText()
        var placed = [Bool](repeating: false, count: sequence.count)
        TabRows.permute(&rows, by: sequence, &placed)
        headings = rows.indices.map { rows[$0].isList }
        tagMasks = rows.indices.map { TagIndex.mask(of: rows[$0].tags) }
        self.rows = rows
        countOpen()
    }

    /// Removes the rows whose ids are in `dropped` and adds `added` (todos only; lists regroup, see `insert`), in
    /// place: the kept rows close up, the added ones are sorted among themselves, and the two are merged from the
    /// back; the kept rows' search text is moved, not lowercased again.
    mutating func merge(dropping dropped: Set<String>, adding added: [TodoRow]) {
        var addedText = SearchText()
        for row in added { addedText.append(row) }
        let addedGroups = added.map(group(of:))
        var order = Array(added.indices)
        addedText.withTitleKeys { key in
            order.sort { TabRows.precedes(added[$0], key($0), addedGroups[$0], added[$1], key($1), addedGroups[$1], self.order, self.ranking) }
        }
        let droppedKeys = Set(dropped.map(RowKey.init))
        removeRows { droppedKeys.contains($0.key) }
        let kept = rows.count
        // Grow once (with room to spare: `LoadedRows.capacity(for:)`), then fill from the back.
        let needed = kept + added.count
        if rows.capacity < needed { rows.reserveCapacity(LoadedRows.capacity(for: needed)) }
        rows.append(contentsOf: added)
        let addedMasks = added.map { TagIndex.mask(of: $0.tags) }
        var masks = tagMasks
        tagMasks = []
        masks.append(contentsOf: repeatElement(0, count: added.count))
        var nextAdded = order.count - 1
        var moved = rows
        rows = []
        var text = search
        search = SearchText()
        addedText.withTitleKeys { addedKey in
            text.merge(
                addedText, order: order,
                addedFirst: { candidate, keptIndex, keptKey in
                    TabRows.precedes(
                        added[candidate], addedKey(candidate), addedGroups[candidate], moved[keptIndex], keptKey,
                        group(of: moved[keptIndex]), self.order, self.ranking)
                },
                place: { position, keptIndex in
                    if let keptIndex {
                        moved.swapAt(position, keptIndex)
                        masks.swapAt(position, keptIndex)
                    } else {
                        moved[position] = added[order[nextAdded]]
                        masks[position] = addedMasks[order[nextAdded]]
                        nextAdded -= 1
                    }
                })
        }
        rows = moved
        search = text
        tagMasks = masks
        headings = rows.map(\.isList)
        countOpen()
    }

    /// Removes the rows `isRemoved` picks, in place, keeping the order of the rest and their tag masks (headings
    /// and counts are the caller's to redo).
    private mutating func removeRows(where isRemoved: (TodoRow) -> Bool) {
        let removed = rows.map(isRemoved)
        search.removeRows { removed[$0] }
        var kept = 0
        for index in rows.indices where !removed[index] {
            if kept != index {
                rows.swapAt(kept, index)
                tagMasks.swapAt(kept, index)
            }
            kept += 1
        }
        rows.removeLast(rows.count - kept)
        tagMasks.removeLast(tagMasks.count - kept)
    }

    /// Marks every row unconfirmed: its scope is being read again.
    mutating func markAllStale() {
        for index in rows.indices { rows[index].isStale = true }
    }

    /// Drops the rows the reading again did not confirm.
    mutating func removeStale() {
        guard rows.contains(where: \.isStale) else { return }
        if rows.contains(where: { $0.isStale && $0.isList }) {
            self = TabRows(rows.filter { !$0.isStale }, order: order, ranking: ranking)  // a list goes: its todos regroup
            return
        }
        removeRows(where: \.isStale)
        headings = rows.map(\.isList)
        countOpen()
    }

    /// Counts the incomplete todos, in all and per list.
    private mutating func countOpen() {
        openCount = 0
        listOpenCounts.removeAll()
        for index in rows.indices where !rows[index].isCompleted && !rows[index].isList {
            openCount += 1
            if let listID = rows[index].listID { listOpenCounts[listID, default: 0] += 1 }
        }
    }

    /// Rearranges `values` so that position `i` holds what was at `order[i]`, following the permutation's
    /// cycles; `placed` is scratch space of the same length (left all false again).
    static func permute<T>(_ values: inout [T], by order: [Int], _ placed: inout [Bool]) {
        for start in order.indices where !placed[start] {
            var current = start
            var next = order[current]
            if next == start {
                continue
            }
            let first = values[start]
            while next != start {
                values[current] = values[next]
                placed[current] = true
                current = next
                next = order[current]
            }
            values[current] = first
            placed[current] = true
        }
        for index in placed.indices { placed[index] = false }
    }

    /// Whether the tab has any list headings.
    var hasLists: Bool { !listGroups.isEmpty }

    static func groupKey(ofList row: TodoRow) -> String {
        "\u{1}" + row.title.lowercased() + "\u{0}" + row.id
    }

    /// The group a row sorts in: "" for todos in no list, else derived from the list's title and id.
    func group(of row: TodoRow) -> String {
        if row.isList { return listGroups[row.id] ?? TabRows.groupKey(ofList: row) }
        guard let listID = row.listID else { return "" }
        return listGroups[listID] ?? ""
    }

    /// Group first, the heading before its todos, then the display order.
    static func precedes(
        _ a: TodoRow, _ aKey: UnsafeBufferPointer<UInt8>, _ aGroup: String, _ b: TodoRow, _ bKey: UnsafeBufferPointer<UInt8>,
        _ bGroup: String, _ order: SortOrder, _ ranking: NextSort?
    ) -> Bool {
        if aGroup != bGroup { return aGroup < bGroup }
        if a.kind != b.kind { return a.isList }
        return displayOrder(a, aKey, b, bKey, order, ranking: ranking)
    }

    func index(of id: String) -> Int? {
        let key = RowKey(id)
        return rows.firstIndex { $0.key == key }
    }

    /// Inserts `row` at its sorted position (binary search).
    mutating func insert(_ row: TodoRow) {
        if row.isList {
            // A new or renamed heading regroups its todos: rebuild (lists change rarely).
            let key = row.key
            self = TabRows(rows.filter { $0.key != key } + [row], order: order, ranking: ranking)
            return
        }
        var single = SearchText()
        single.append(row)
        let group = group(of: row)
        var low = 0
        var high = rows.count
        single.withTitleKeys { rowKey in
            search.withTitleKeys { key in
                while low < high {
                    let mid = (low + high) / 2
                    if TabRows.precedes(rows[mid], key(mid), self.group(of: rows[mid]), row, rowKey(0), group, order, ranking) {
                        low = mid + 1
                    } else {
                        high = mid
                    }
                }
            }
        }
        rows.insert(row, at: low)
        search.insert(single, at: low)
        headings.insert(false, at: low)
        tagMasks.insert(TagIndex.mask(of: row.tags), at: low)
        if !row.isCompleted {
            openCount += 1
            if let listID = row.listID { listOpenCounts[listID, default: 0] += 1 }
        }
    }

    @discardableResult
    mutating func remove(id: String) -> TodoRow? {
        guard let index = index(of: id) else { return nil }
        let row = rows[index]
        if row.isList {
            // Its todos go with it (the engine deletes them in the same transaction).
            let key = RowKey(id)
            self = TabRows(rows.filter { $0.key != key && $0.listID != id }, order: order, ranking: ranking)
            return row
        }
        rows.remove(at: index)
        search.remove(at: index)
        headings.remove(at: index)
        tagMasks.remove(at: index)
        if !row.isCompleted {
            openCount -= 1
            if let listID = row.listID { listOpenCounts[listID, default: 1] -= 1 }
        }
        return row
    }

    /// The lists of the tab, in display order.
    var lists: [TodoRow] { rows.filter(\.isList) }

    /// Number of todos in a list.
    func count(inList id: String) -> Int { rows.count { $0.listID == id && !$0.isList } }
}

/// What `displayOrder` and the grouping compare of a row, before its title and id: its group's rank, heading or
/// todo, done or not, and the one key its sort order compares next (priority and due, due and priority, or created).
struct SortFields {
    var group: Int
    var isList: Bool
    var isCompleted: Bool
    /// Compared first (larger first): the priority, or for `.created` the creation time.
    var first: Int64
    /// Compared second (smaller first): the due moment (none: +infinity) for `.priority`; for `.due`, first and
    /// second swap roles (`dueFirst`).
    var due: Double
    var dueFirst: Bool
    /// For `.next`, the todo's `NextRanking` key, which decides alone after the group, heading and done.
    var next: NextRanking.Key?

    init(_ row: TodoRow, group: Int, order: SortOrder, ranking: NextSort? = nil) {
        self.group = group
        isList = row.isList
        isCompleted = row.isCompleted
        due = row.due?.localMoment ?? .infinity
        dueFirst = order == .due
        switch order {
        case .priority, .due: first = Int64(row.priority)
        case .next:
            // The Next view's order: every term `todo next` counts, its ties broken as it breaks them.
            if !row.isList, let ranking { next = ranking.key(of: row) }
            first = 0
            dueFirst = true
        case .created: first = row.createdKey
        case .title:
            first = 0
            due = 0
        }
        if order == .created { due = 0 }
    }

    /// Whether this row is listed before `other` by these fields; nil when they tie (titles and ids decide).
    func precedes(_ other: SortFields) -> Bool? {
        if group != other.group { return group < other.group }
        if isList != other.isList { return isList }
        if isCompleted != other.isCompleted { return !isCompleted }
        if let next, let other = other.next { return NextRanking.before(next, other) }
        if dueFirst, due != other.due { return due < other.due }
        if first != other.first { return first > other.first }
        if !dueFirst, due != other.due { return due < other.due }
        return nil
    }
}
