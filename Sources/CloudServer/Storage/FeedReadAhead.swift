import CloudModel
import Foundation
import Synchronization

/// The next page of an owner's zone feed, read while the page before it is still on its way to the device.
///
/// A device reads a feed page after page, each asked for with the token of the one before, so on PostgreSQL a
/// page's statement round trip and row decoding sat idle between the device's requests. After answering a page with
/// `moreComing`, the instance starts reading the page that token names; the device's next request takes it (waiting
/// for it if it is still being read) instead of reading it then.
///
/// What a device gets is what a read at the moment the page was read ahead gave: a consistent page of the feed. A
/// write committed after that has a higher feed position than every row in it (see the commit-order tests), so it
/// comes in a later page; a record the page holds in an older state comes again, newer, later on. A notice of a
/// write to the zone (`ChangeNotice.database`, from this instance or another) drops the pages read ahead for it, so
/// a page is not that old unless notices were lost, and never older than `maxAge`. Only the device's own pages are
/// read ahead (an owner's custom zone, whole records): shared views and anything else take the usual path.
final class FeedReadAhead: Sendable {
    /// Which page: whose zone, after which position, how many rows, tombstones or not.
    struct Key: Hashable, Sendable {
        var database: DatabaseKey
        var zoneName: String
        var after: Int64
        var limit: Int
        var includeTombstones: Bool
    }

    /// A page dropped is let finish and its rows go unread (cancelling would save one page's read at most); one a
    /// request has taken is that request's.
    private struct Entry {
        var read: Task<ZoneFeedRead?, any Error>
        var startedAt: ContinuousClock.Instant
    }

    /// Pages kept at most (each is a page the instance would read anyway; beyond this, none is read ahead).
    let capacity: Int
    /// How long a page read ahead may serve.
    let maxAge: Duration
    /// A page whose records' fields together are larger is neither kept nor followed by a read ahead, so the pages
    /// kept hold at most `capacity` times this (the request reads such a page itself, as it would without).
    static let maxPageBytes = 1 << 20

    /// Whether a page of `rows` is small enough to keep (see `maxPageBytes`).
    static func fits(_ rows: [StoredRecord]) -> Bool {
        var bytes = 0
        for row in rows {
            bytes += row.fieldsJSON.count
            if bytes > maxPageBytes { return false }
        }
        return true
    }

    private let entries = Mutex<[Key: Entry]>([:])
    private let served = Atomic<Int>(0)

    /// A read-ahead keeping at most `capacity` pages, each for at most `maxAge`.
    init(capacity: Int = 32, maxAge: Duration = .seconds(2)) {
        self.capacity = max(1, capacity)
        self.maxAge = maxAge
    }

    /// The page read ahead for `key`, taken (a page serves one request); nil when there is none or it is too old.
    func take(_ key: Key, now: ContinuousClock.Instant = .now) -> Task<ZoneFeedRead?, any Error>? {
        entries.withLock { entries in
            guard let entry = entries.removeValue(forKey: key) else { return nil }
            guard now - entry.startedAt < maxAge else { return nil }
            served.add(1, ordering: .relaxed)
            return entry.read
        }
    }

    /// Starts reading the page `key` with `read`, unless it is being read already or `capacity` pages are kept
    /// (expired ones are dropped first).
    func start(_ key: Key, now: ContinuousClock.Instant = .now, _ read: @escaping @Sendable () async throws -> ZoneFeedRead?) {
        entries.withLock { entries in
            guard entries[key] == nil else { return }
            if entries.count >= capacity {
                for (old, entry) in entries where now - entry.startedAt >= maxAge { entries[old] = nil }
                guard entries.count < capacity else { return }
            }
            entries[key] = Entry(read: Task { try await read() }, startedAt: now)
        }
    }

    /// Drops the pages read ahead for `database`'s `zones` (nil: all its zones): a write there committed.
    func forget(_ database: DatabaseKey, zones: Set<String>?) {
        entries.withLock { entries in
            for key in entries.keys where key.database == database && (zones?.contains(key.zoneName) ?? true) { entries[key] = nil }
        }
    }

    /// Drops every page read ahead (notices may have been lost).
    func forgetAll() {
        entries.withLock { $0.removeAll() }
    }

    /// How many pages are kept (for tests).
    var count: Int { entries.withLock { $0.count } }

    /// How many pages read ahead were taken by a request (for tests).
    var pagesServed: Int { served.load(ordering: .relaxed) }
}

extension StoreTransaction {
    /// The feed page `key` names (see `zoneFeed(_:name:after:limit:includeTombstones:)`).
    func zoneFeed(_ key: FeedReadAhead.Key) async throws -> ZoneFeedRead? {
        try await zoneFeed(key.database, name: key.zoneName, after: key.after, limit: key.limit, includeTombstones: key.includeTombstones)
    }
}
