import Foundation
import Synchronization

/// The sessions one instance read lately, so a device's run of requests is not a database round trip each (on
/// PostgreSQL the session check was one of a page read's two round trips).
///
/// An entry serves for `lifetime` after it was read. A session ended on this instance is forgotten at once; one ended
/// on another instance when that instance's notice arrives (`ChangeNotice.sessionsEnded`); one ended by the operator's
/// tools, or whose notice was lost, once `lifetime` has passed (`ServerConfiguration.sessionCacheLifetime`). Only an
/// instance whose store reads by round trips keeps one (`CloudStore.readsAreRoundTrips`).
final class SessionCache: Sendable {
    private struct Entry {
        var row: SessionRow
        var readAt: ContinuousClock.Instant
    }

    /// How long a session read from the store is trusted.
    let lifetime: Duration
    /// Entries kept at most; past it the expired ones go, then all.
    let capacity: Int
    private let entries = Mutex<[String: Entry]>([:])

    /// A cache whose entries serve for `lifetime`.
    init(lifetime: Duration, capacity: Int = 10_000) {
        self.lifetime = lifetime
        self.capacity = max(1, capacity)
    }

    /// The session of a token digest, if read within `lifetime` and not ended since.
    func session(digest: String, now: ContinuousClock.Instant = .now) -> SessionRow? {
        entries.withLock { entries in
            guard let entry = entries[digest] else { return nil }
            guard now - entry.readAt < lifetime else {
                entries[digest] = nil
                return nil
            }
            return entry.row
        }
    }

    /// Keeps a session just read from the store (or just touched there).
    func remember(digest: String, _ row: SessionRow, now: ContinuousClock.Instant = .now) {
        entries.withLock { entries in
            if entries[digest] == nil, entries.count >= capacity {
                entries = entries.filter { now - $0.value.readAt < lifetime }
                if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            }
            entries[digest] = Entry(row: row, readAt: now)
        }
    }

    /// Forgets the sessions a notice or a local change ended.
    func forget(_ ended: EndedSessions) {
        entries.withLock { entries in
            switch ended {
            case .token(let digest): entries[digest] = nil
            case .device(let deviceID): entries = entries.filter { $0.value.row.deviceID != deviceID }
            case .user(let user): entries = entries.filter { $0.value.row.userRecordName != user }
            }
        }
    }

    /// Forgets everything (notices may have been lost).
    func forgetAll() {
        entries.withLock { $0.removeAll() }
    }

    /// How many sessions are kept (for tests).
    var count: Int { entries.withLock { $0.count } }
}

/// Which sessions ended: one token's, every one of a device, or every one of a user.
enum EndedSessions: Sendable, Hashable, Codable {
    /// The session of one token, by its digest.
    case token(digest: String)
    /// Every session of a device.
    case device(String)
    /// Every session of a user.
    case user(String)
}
