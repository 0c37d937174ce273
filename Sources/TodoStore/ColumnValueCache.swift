import CloudModel
import Foundation
import SQLiteDB

/// Values made from a text column, each distinct column text made once per read: the list and parent references
/// (JSON) of 100,000 todos in six lists are six of each, not 100,000 `JSONDecoder` runs (12 % of `todo next`), and
/// the rows share one copy of each value's strings.
///
/// Found by the column's bytes, read in place (no string is made to look one up); at most `limit` values are kept,
/// and texts beyond them are made each time, as before.
struct ColumnValueCache<Value> {
    private var buckets: [Int: [(bytes: [UInt8], value: Value)]] = [:]
    private var count = 0
    private let limit: Int
    /// The last few texts found or made, compared before any hashing: a read's rows repeat the same zone, owner,
    /// user and device names row after row, and hashing each name of each row was 3 % of an export.
    private var recent: [(bytes: [UInt8], value: Value)] = []
    /// Where the next text goes in `recent` once it is full.
    private var nextRecent = 0
    /// How many texts `recent` holds at most.
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
        let (value, kept) = try hashedValue(of: bytes, make)
        // Only what the hashed store keeps is remembered (sharing its copy of the bytes): a text past the limit is
        // made each time, and remembering it would copy every row's bytes.
        guard let kept else { return value }
        if recent.count < Self.recentLimit {
            recent.append((kept, value))
        } else {
            recent[nextRecent] = (kept, value)
            nextRecent = (nextRecent + 1) % Self.recentLimit
        }
        return value
    }

    /// Whether `known` holds exactly `bytes`.
    private static func same(_ known: [UInt8], _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard known.count == bytes.count else { return false }
        return bytes.isEmpty || known.withUnsafeBufferPointer { memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 }
    }

    /// The value of `bytes` from the hashed store, made by `make` (and kept, below the limit) unless known, with the
    /// store's copy of the bytes (nil when it keeps none).
    private mutating func hashedValue(
        of bytes: UnsafeBufferPointer<UInt8>, _ make: (UnsafeBufferPointer<UInt8>) throws -> Value
    ) rethrows -> (Value, [UInt8]?) {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        let hash = hasher.finalize()
        if let bucket = buckets[hash] {
            for entry in bucket where Self.same(entry.bytes, bytes) { return (entry.value, entry.bytes) }
        }
        let value = try make(bytes)
        guard count < limit else { return (value, nil) }
        let kept = Array(bytes)
        buckets[hash, default: []].append((kept, value))
        count += 1
        return (value, kept)
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
