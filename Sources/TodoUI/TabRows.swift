#if canImport(Glibc)
import Glibc
#endif

/// The lowercased title and notes of every row of a tab, back to back in one byte buffer.
///
/// A filter pass is one scan of the buffer, and 100,000 rows cost their bytes plus four per row rather than a
/// string (and its heap block) each. A row's text is its lowercased title, then, when it has notes, a 0 byte and
/// its lowercased notes; the title part is the row's sort key.
struct SearchText: Sendable {
    private(set) var bytes: [UInt8] = []
    /// Where each row's text starts, then where the last one ends: one entry more than there are rows.
    private(set) var starts: [UInt32] = [0]

    /// Number of rows.
    var count: Int { starts.count - 1 }

    /// Room for `rows` rows of `bytes` bytes in all.
    mutating func reserve(rows: Int, bytes: Int) {
        starts.reserveCapacity(rows + 1)
        self.bytes.reserveCapacity(bytes)
    }

    /// Appends a row's text.
    mutating func append(_ row: TodoRow) {
        bytes.append(contentsOf: row.title.lowercased().utf8)
        if !row.notes.isEmpty {
            bytes.append(0)
            bytes.append(contentsOf: row.notes.lowercased().utf8)
        }
        starts.append(UInt32(bytes.count))
    }

    /// Appends the text of row `index` of `other`.
    mutating func append(row index: Int, of other: SearchText) {
        bytes.append(contentsOf: other.bytes[other.range(index)])
        starts.append(UInt32(bytes.count))
    }

    /// Where row `index`'s text lies in `bytes`.
    func range(_ index: Int) -> Range<Int> { Int(starts[index])..<Int(starts[index + 1]) }

    /// Puts the text of `single` (one row's) at position `index`, moving the later rows along.
    mutating func insert(_ single: SearchText, at index: Int) {
        let at = Int(starts[index])
        bytes.insert(contentsOf: single.bytes, at: at)
        starts.insert(UInt32(at), at: index)
        let shift = UInt32(single.bytes.count)
        for later in (index + 1)..<starts.count { starts[later] += shift }
    }

    /// Removes row `index`'s text.
    mutating func remove(at index: Int) {
        let range = range(index)
        bytes.removeSubrange(range)
        starts.remove(at: index + 1)
        let shift = UInt32(range.count)
        for later in (index + 1)..<starts.count { starts[later] -= shift }
    }

    /// Removes the text of the rows `isRemoved` picks, in place, keeping the order of the rest.
    mutating func removeRows(where isRemoved: (Int) -> Bool) {
        var bytes = self.bytes
        self.bytes = []
        var starts = self.starts
        self.starts = []
        var write = 0
        var kept = 0
        var start = Int(starts[0])
        bytes.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            for row in 0..<(starts.count - 1) {
                let end = Int(starts[row + 1])  // only entries up to `kept` <= `row` were rewritten yet
                if !isRemoved(row) {
                    if write != start { memmove(base + write, base + start, end - start) }
                    starts[kept] = UInt32(write)
                    write += end - start
                    kept += 1
                }
                start = end
            }
        }
        starts[kept] = UInt32(write)
        starts.removeLast(starts.count - kept - 1)
        bytes.removeLast(bytes.count - write)
        self.bytes = bytes
        self.starts = starts
    }

    /// Merges the rows of `added`, taken in `order`, into these (sorted) rows, in place and from the back:
    /// `addedFirst(a, kept, keptKey)` says whether added row `a` is listed before kept row `kept`, whose title key
    /// is `keptKey`. `place(k, fromKept:)` is told what goes to position `k` (a kept row's index, or nil and the
    /// next added row), so the caller moves its rows alike.
    mutating func merge(
        _ added: SearchText, order: [Int], addedFirst: (Int, Int, UnsafeBufferPointer<UInt8>) -> Bool,
        place: (_ position: Int, _ keptRow: Int?) -> Void
    ) {
        var bytes = self.bytes
        self.bytes = []
        var starts = self.starts
        self.starts = []
        let keptCount = starts.count - 1
        var keptEnd = bytes.count
        bytes.reserveCapacity(bytes.count + added.bytes.count)
        bytes.append(contentsOf: repeatElement(0, count: added.bytes.count))
        starts.reserveCapacity(starts.count + order.count)
        starts.append(contentsOf: repeatElement(0, count: order.count))
        var cursor = bytes.count
        starts[keptCount + order.count] = UInt32(cursor)
        var kept = keptCount - 1
        var next = order.count - 1
        var position = keptCount + order.count - 1
        bytes.withUnsafeMutableBufferPointer { buffer in
            added.bytes.withUnsafeBufferPointer { addedBuffer in
                guard let base = buffer.baseAddress else { return }
                while next >= 0 {
                    let candidate = order[next]
                    let keptStart = kept >= 0 ? Int(starts[kept]) : 0
                    let keptLast =
                        kept >= 0
                        && addedFirst(candidate, kept, SearchText.titleKey(UnsafeBufferPointer(buffer), keptStart, keptEnd))
                    if keptLast {
                        let length = keptEnd - keptStart
                        cursor -= length
                        memmove(base + cursor, base + keptStart, length)
                        place(position, kept)
                        keptEnd = keptStart
                        kept -= 1
                    } else {
                        let range = added.range(candidate)
                        cursor -= range.count
                        if let from = addedBuffer.baseAddress, !range.isEmpty {
                            memcpy(base + cursor, from + range.lowerBound, range.count)
                        }
                        place(position, nil)
                        next -= 1
                    }
                    starts[position] = UInt32(cursor)
                    position -= 1
                }
            }
        }
        self.bytes = bytes
        self.starts = starts
    }

    /// Calls `body` with a function giving each row's sort key (its lowercased title) in place.
    func withTitleKeys<R>(_ body: ((Int) -> UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try bytes.withUnsafeBufferPointer { buffer in
            try body { index in Self.titleKey(buffer, Int(starts[index]), Int(starts[index + 1])) }
        }
    }

    /// The title part of the text between `start` and `end`: up to the 0 byte before the notes.
    static func titleKey(_ buffer: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> UnsafeBufferPointer<UInt8> {
        guard let base = buffer.baseAddress, end > start else { return UnsafeBufferPointer(start: nil, count: 0) }
        let from = base + start
        guard let zero = memchr(from, 0, end - start) else { return UnsafeBufferPointer(start: from, count: end - start) }
        return UnsafeBufferPointer(start: from, count: from.distance(to: zero.assumingMemoryBound(to: UInt8.self)))
    }

    /// The rows whose text contains `needle` (lowercased UTF-8), ascending: one scan of the whole buffer, with
    /// libc's `memchr` finding candidates and `memcmp` checking them.
    func rows(containing needle: [UInt8]) -> [Int] {
        guard let first = needle.first else { return Array(0..<count) }
        var result: [Int] = []
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, buffer.count >= needle.count else { return }
            needle.withUnsafeBufferPointer { wanted in
                guard let wantedBase = wanted.baseAddress else { return }
                var offset = 0
                var row = 0
                let last = buffer.count - needle.count
                while offset <= last {
                    guard let hit = memchr(base + offset, Int32(first), last - offset + 1) else { break }
                    let at = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                    if memcmp(hit, wantedBase, needle.count) == 0 {
                        while Int(starts[row + 1]) <= at { row += 1 }
                        let end = Int(starts[row + 1])
                        if at + needle.count <= end {
                            // A match inside the row: record it and go on with the next row.
                            result.append(row)
                            offset = end
                            continue
                        }
                    }
                    offset = at + 1
                }
            }
        }
        return result
    }

    /// Whether row `index`'s text contains `needle`.
    func row(_ index: Int, contains needle: [UInt8]) -> Bool {
        guard let first = needle.first else { return true }
        let range = range(index)
        guard range.count >= needle.count else { return false }
        return bytes.withUnsafeBufferPointer { buffer in
            needle.withUnsafeBufferPointer { wanted in
                guard let base = buffer.baseAddress, let wantedBase = wanted.baseAddress else { return false }
                var offset = range.lowerBound
                let last = range.upperBound - needle.count
                while offset <= last {
                    guard let hit = memchr(base + offset, Int32(first), last - offset + 1) else { return false }
                    if memcmp(hit, wantedBase, needle.count) == 0 { return true }
                    offset = base.distance(to: hit.assumingMemoryBound(to: UInt8.self)) + 1
                }
                return false
            }
        }
    }
}

/// The rows of one tab, kept sorted, with their lowercased search text.
///
/// Lists group their todos: todos in no list come first, then each list heading (by title) followed by its
/// todos. Within a group rows keep the display order (`displayOrder`).
struct TabRows: Sendable {
    var rows: [TodoRow] = []
    /// The lowercased title and notes of each row, in row order.
    var search = SearchText()
    /// The group key of each list row by id.
    var listGroups: [String: String] = [:]
    /// Per row, whether it is a list heading (read in the filter pass without touching the rows).
    var headings: [Bool] = []
    /// Incomplete todos per list id.
    var listOpenCounts: [String: Int] = [:]
    var openCount = 0

    init(_ unsorted: consuming [TodoRow] = []) {
        var rows = unsorted
        for row in rows where row.isList { listGroups[row.id] = TabRows.groupKey(ofList: row) }
        // The search text in arrival order gives the sort keys; sort indices, write the text again in the sorted
        // order, then permute the rows in place (no second copy of the rows).
        var arrival = SearchText()
        arrival.reserve(rows: rows.count, bytes: rows.count * 24)
        for row in rows { arrival.append(row) }
        let groups = rows.map(group(of:))
        var order = Array(rows.indices)
        arrival.withTitleKeys { key in
            order.sort { TabRows.precedes(rows[$0], key($0), groups[$0], rows[$1], key($1), groups[$1]) }
        }
        search.reserve(rows: rows.count, bytes: arrival.bytes.count)
        for index in order { search.append(row: index, of: arrival) }
        arrival = SearchText()
        var placed = [Bool](repeating: false, count: order.count)
        TabRows.permute(&rows, by: order, &placed)
        headings = rows.map(\.isList)
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
            order.sort { TabRows.precedes(added[$0], key($0), addedGroups[$0], added[$1], key($1), addedGroups[$1]) }
        }
        removeRows { dropped.contains($0.id) }
        let kept = rows.count
        // Grow once, then fill from the back.
        rows.reserveCapacity(kept + added.count)
        rows.append(contentsOf: added)
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
                        added[candidate], addedKey(candidate), addedGroups[candidate], moved[keptIndex], keptKey, group(of: moved[keptIndex]))
                },
                place: { position, keptIndex in
                    if let keptIndex {
                        moved.swapAt(position, keptIndex)
                    } else {
                        moved[position] = added[order[nextAdded]]
                        nextAdded -= 1
                    }
                })
        }
        rows = moved
        search = text
        headings = rows.map(\.isList)
        countOpen()
    }

    /// Removes the rows `isRemoved` picks, in place, keeping the order of the rest (headings and counts are the
    /// caller's to redo).
    private mutating func removeRows(where isRemoved: (TodoRow) -> Bool) {
        let removed = rows.map(isRemoved)
        search.removeRows { removed[$0] }
        var kept = 0
        for index in rows.indices where !removed[index] {
            if kept != index { rows.swapAt(kept, index) }
            kept += 1
        }
        rows.removeLast(rows.count - kept)
    }

    /// Marks every row unconfirmed: its scope is being read again.
    mutating func markAllStale() {
        for index in rows.indices { rows[index].isStale = true }
    }

    /// Drops the rows the reading again did not confirm.
    mutating func removeStale() {
        guard rows.contains(where: \.isStale) else { return }
        if rows.contains(where: { $0.isStale && $0.isList }) {
            self = TabRows(rows.filter { !$0.isStale })  // a list goes: its todos regroup
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
        for row in rows where !row.isCompleted && !row.isList {
            openCount += 1
            if let listID = row.listID { listOpenCounts[listID, default: 0] += 1 }
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
        _ bGroup: String
    ) -> Bool {
        if aGroup != bGroup { return aGroup < bGroup }
        if a.kind != b.kind { return a.isList }
        return displayOrder(a, aKey, b, bKey)
    }

    func index(of id: String) -> Int? {
        rows.firstIndex { $0.id == id }
    }

    /// Inserts `row` at its sorted position (binary search).
    mutating func insert(_ row: TodoRow) {
        if row.isList {
            // A new or renamed heading regroups its todos: rebuild (lists change rarely).
            self = TabRows(rows.filter { $0.id != row.id } + [row])
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
                    if TabRows.precedes(rows[mid], key(mid), self.group(of: rows[mid]), row, rowKey(0), group) {
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
            self = TabRows(rows.filter { $0.id != id && $0.listID != id })
            return row
        }
        rows.remove(at: index)
        search.remove(at: index)
        headings.remove(at: index)
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
