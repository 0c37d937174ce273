import CloudModel
import Foundation

/// What a write tells every cloud instance once it commits, so each can wake the devices long-polling it.
///
/// Notices carry keys, never data: an instance that hosts a subscribed device looks up the subscriptions, tokens
/// and records it needs. That keeps them small (PostgreSQL's NOTIFY takes at most 8000 bytes) and keeps the
/// writer's transaction short.
enum ChangeNotice: Sendable, Hashable {
    /// A database's change feed moved, in `zones` (nil: in any zone; empty: only `records` to judge): its owner's
    /// devices subscribed to it hear of it, all but the device that wrote. `records` names the records written, for
    /// the owner's query subscriptions (nil: none to judge).
    case database(DatabaseKey, zones: Set<String>?, writerDevice: String?, records: [PublicRecordChange]? = nil)
    /// Records of a container's public database changed: its query subscriptions look at them.
    case publicRecords(container: String, changes: [PublicRecordChange], writerDevice: String?)
    /// `device/push`: a test push to the tokens of one device.
    case devicePush(container: String, user: String, deviceID: String)
    /// Shares of an owner zone were added, removed or used: an instance's cached "this zone has shares" is stale.
    case zoneSharesChanged(zonePK: Int64)
    /// A sign-in or registration attempt one instance counted (or handed back): every other instance counts it too.
    case throttle(ThrottleEvent, origin: String)
    /// Sessions ended (signed out, revoked, replaced): every instance forgets them from its `SessionCache`.
    case sessionsEnded(EndedSessions)
}

/// One change of a record (public, or in a private database), as a query subscription needs to judge it.
struct PublicRecordChange: Sendable, Hashable, Codable {
    var recordName: String
    var zoneName: String
    var event: FiresOn
}

/// What a sign-in throttle shares with the other instances.
enum ThrottleEvent: Sendable, Hashable, Codable {
    /// A sign-in began (counted as a failure until it succeeds).
    case signInBegan(account: String, address: String)
    /// A sign-in succeeded: the attempt is handed back.
    case signInSucceeded(account: String, address: String)
    /// A registration was attempted.
    case registration(address: String)
}

// MARK: Wire form

extension ChangeNotice: Codable {
    private enum Kind: String, Codable {
        case database = "db", publicRecords = "pub", devicePush = "dev", zoneShares = "shr", throttle = "thr", sessions = "ses"
    }

    private enum Key: String, CodingKey {
        case kind = "k", container = "c", scope = "s", owner = "o", zones = "z", writer = "w", changes = "r", user = "u"
        case device = "d", zonePK = "p", event = "e", origin = "g", ended = "x", records = "q"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        switch try c.decode(Kind.self, forKey: .kind) {
        case .database:
            let key = DatabaseKey(
                container: try c.decode(String.self, forKey: .container), scope: try c.decode(DatabaseScope.self, forKey: .scope),
                owner: try c.decode(String.self, forKey: .owner))
            self = .database(
                key, zones: try c.decodeIfPresent([String].self, forKey: .zones).map(Set.init),
                writerDevice: try c.decodeIfPresent(String.self, forKey: .writer),
                records: try c.decodeIfPresent([PublicRecordChange].self, forKey: .records))
        case .publicRecords:
            self = .publicRecords(
                container: try c.decode(String.self, forKey: .container), changes: try c.decode([PublicRecordChange].self, forKey: .changes),
                writerDevice: try c.decodeIfPresent(String.self, forKey: .writer))
        case .devicePush:
            self = .devicePush(
                container: try c.decode(String.self, forKey: .container), user: try c.decode(String.self, forKey: .user),
                deviceID: try c.decode(String.self, forKey: .device))
        case .zoneShares:
            self = .zoneSharesChanged(zonePK: try c.decode(Int64.self, forKey: .zonePK))
        case .throttle:
            self = .throttle(try c.decode(ThrottleEvent.self, forKey: .event), origin: try c.decode(String.self, forKey: .origin))
        case .sessions:
            self = .sessionsEnded(try c.decode(EndedSessions.self, forKey: .ended))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        switch self {
        case .database(let key, let zones, let writer, let records):
            try c.encode(Kind.database, forKey: .kind)
            try c.encode(key.container, forKey: .container)
            try c.encode(key.scope, forKey: .scope)
            try c.encode(key.owner, forKey: .owner)
            try c.encodeIfPresent(zones.map { $0.sorted() }, forKey: .zones)
            try c.encodeIfPresent(writer, forKey: .writer)
            try c.encodeIfPresent(records, forKey: .records)
        case .publicRecords(let container, let changes, let writer):
            try c.encode(Kind.publicRecords, forKey: .kind)
            try c.encode(container, forKey: .container)
            try c.encode(changes, forKey: .changes)
            try c.encodeIfPresent(writer, forKey: .writer)
        case .devicePush(let container, let user, let device):
            try c.encode(Kind.devicePush, forKey: .kind)
            try c.encode(container, forKey: .container)
            try c.encode(user, forKey: .user)
            try c.encode(device, forKey: .device)
        case .zoneSharesChanged(let pk):
            try c.encode(Kind.zoneShares, forKey: .kind)
            try c.encode(pk, forKey: .zonePK)
        case .throttle(let event, let origin):
            try c.encode(Kind.throttle, forKey: .kind)
            try c.encode(event, forKey: .event)
            try c.encode(origin, forKey: .origin)
        case .sessionsEnded(let ended):
            try c.encode(Kind.sessions, forKey: .kind)
            try c.encode(ended, forKey: .ended)
        }
    }
}

/// Notices packed into NOTIFY payloads: JSON arrays of at most `limit` bytes each.
enum NoticePayload {
    /// PostgreSQL refuses a NOTIFY payload of 8000 bytes or more; a margin stays free.
    static let limit = 7900

    /// The payloads that carry `notices`, in order. A notice too large alone is made coarser (a database notice
    /// names no zones: every zone subscription fires) or split (public changes in halves); a notice that cannot be
    /// made to fit (its keys alone are too long) is left out and counted in `dropped`.
    static func pack(_ notices: [ChangeNotice], limit: Int = limit) -> (payloads: [String], dropped: Int) {
        var payloads: [String] = []
        var current: [String] = []
        var currentBytes = 2  // "[" and "]"
        var dropped = 0
        func flush() {
            guard !current.isEmpty else { return }
            payloads.append("[" + current.joined(separator: ",") + "]")
            current = []
            currentBytes = 2
        }
        var queue = notices[...]
        var pending: [ChangeNotice] = []
        while let notice = pending.popLast() ?? queue.popFirst() {
            guard let json = encode(notice) else {
                dropped += 1
                continue
            }
            if json.utf8.count + 2 > limit {
                let smaller = split(notice)
                if smaller.isEmpty { dropped += 1 } else { pending.append(contentsOf: smaller.reversed()) }
                continue
            }
            if currentBytes + json.utf8.count + (current.isEmpty ? 0 : 1) > limit { flush() }
            currentBytes += json.utf8.count + (current.isEmpty ? 0 : 1)
            current.append(json)
        }
        flush()
        return (payloads, dropped)
    }

    /// The notices in a payload; nil when it is not one of ours (anybody who can reach the database can NOTIFY).
    static func unpack(_ payload: String) -> [ChangeNotice]? {
        guard payload.utf8.count <= 8000 else { return nil }
        return try? JSONDecoder().decode([ChangeNotice].self, from: Data(payload.utf8))
    }

    private static func encode(_ notice: ChangeNotice) -> String? {
        guard let data = try? encoder.encode(notice) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Smaller notices saying at least as much as `notice`; empty when it cannot be made smaller.
    private static func split(_ notice: ChangeNotice) -> [ChangeNotice] {
        switch notice {
        case .database(let key, let zones, let writer, let records):
            // The records go in halves of their own (no zones: the zone's subscriptions hear of it once).
            if let records, records.count > 1 {
                let half = records.count / 2
                return [
                    .database(key, zones: zones, writerDevice: writer, records: Array(records[..<half])),
                    .database(key, zones: [], writerDevice: writer, records: Array(records[half...])),
                ]
            }
            if records != nil { return [.database(key, zones: zones, writerDevice: writer)] }
            return zones == nil || zones?.isEmpty == true ? [] : [.database(key, zones: nil, writerDevice: writer)]
        case .publicRecords(let container, let changes, let writer):
            guard changes.count > 1 else { return [] }
            let half = changes.count / 2
            return [
                .publicRecords(container: container, changes: Array(changes[..<half]), writerDevice: writer),
                .publicRecords(container: container, changes: Array(changes[half...]), writerDevice: writer),
            ]
        case .devicePush, .zoneSharesChanged, .throttle, .sessionsEnded:
            return []
        }
    }
}
