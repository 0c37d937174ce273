import CloudModel
import Foundation
import SQLiteDB

/// Values made from a text column, each distinct column text made once per read: the list and parent references
/// (JSON) of 100,000 todos in six lists are six of each, not 100,000 `JSONDecoder` runs (12 % of `todo next`), and
/// the rows share one copy of each value's strings.
///
/// Found by the column's bytes, read in place (no string is made to look one up); at most `limit` values are kept,
/// and a text beyond them is made each time it comes, unless it is among the last four found or made.
struct ColumnValueCache<Value> {
    private var buckets: [Int: [(bytes: [UInt8], value: Value)]] = [:]
    private var count = 0
    private let limit: Int
    /// The last few texts found or made, compared before any hashing: a column's rows mostly repeat a handful of
    /// texts (one account's user, its devices, a few lists), and hashing the bytes and then the hash again for the
    /// dictionary was 760 instructions a look-up (5 % of a Taskwarrior export of 1,000 todos).
    private var recent: [(bytes: [UInt8], value: Value)] = []
    private var nextRecent = 0
    private static var recentLimit: Int { 4 }

    /// An empty cache keeping up to `limit` distinct texts.
    init(limit: Int = 4096) { self.limit = limit }

    /// The value of column `column`'s text (nil when NULL), made by `make` from the bytes unless known.
    mutating func value(
        _ row: Row, _ column: Int32, _ make: (UnsafeBufferPointer<UInt8>) throws -> Value
    ) rethrows -> Value? {
        guard !row.isNull(column) else { return nil }
        return try row.withText(column) { bytes in try value(of: bytes, make) }
    }

    /// The value of `bytes`, made by `make` unless known.
    mutating func value(of bytes: UnsafeBufferPointer<UInt8>, _ make: (UnsafeBufferPointer<UInt8>) throws -> Value) rethrows -> Value {
        guard limit > 0 else { return try make(bytes) }
        for entry in recent where Self.same(entry.bytes, bytes) { return entry.value }
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        let hash = hasher.finalize()
        if let bucket = buckets[hash], let entry = bucket.first(where: { Self.same($0.bytes, bytes) }) {
            remember(entry)
            return entry.value
        }
        let entry = (bytes: Array(bytes), value: try make(bytes))
        if count < limit {
            buckets[hash, default: []].append(entry)
            count += 1
        }
        remember(entry)
        return entry.value
    }

    /// Keeps `entry` among the recent ones, in place of the one kept longest.
    private mutating func remember(_ entry: (bytes: [UInt8], value: Value)) {
        if recent.count < Self.recentLimit {
            recent.append(entry)
        } else {
            recent[nextRecent] = entry
            nextRecent = (nextRecent + 1) % Self.recentLimit
        }
    }

    /// Whether `known` holds exactly `bytes`.
    private static func same(_ known: [UInt8], _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        known.count == bytes.count
            && (bytes.isEmpty || known.withUnsafeBufferPointer { memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 })
    }
}

/// The caches of one read of many rows: references, tag lists and zone owners, each made once per distinct text.
struct RowReadCaches {
    var lists = ColumnValueCache<Reference>()
    var parents = ColumnValueCache<ParentReference>()
    var tags = ColumnValueCache<[String]>()
    var names = ColumnValueCache<String>(limit: 1024)

    /// Caches keeping nothing, for a read of one row.
    static var none: RowReadCaches {
        RowReadCaches(lists: ColumnValueCache(limit: 0), parents: ColumnValueCache(limit: 0), tags: ColumnValueCache(limit: 0), names: ColumnValueCache(limit: 0))
    }
}
