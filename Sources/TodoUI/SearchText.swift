#if canImport(Glibc)
import Glibc
#endif
import TodoPlanning

/// The lowercased title, notes and annotations of every row of a tab, back to back in one byte buffer.
///
/// A filter pass is one scan of the buffer, and 100,000 rows cost their bytes plus four per row rather than a
/// string (and its heap block) each. A row's text is its lowercased title, then, when it has notes, a 0 byte and
/// its lowercased notes, then a 0 byte and each annotation lowercased; the title part is the row's sort key.
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
        // Annotations are searched as the notes are (a 0 byte between keeps a word from spanning two of them).
        for annotation in row.annotations {
            bytes.append(0)
            bytes.append(contentsOf: annotation.text.lowercased().utf8)
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
