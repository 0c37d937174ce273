import Foundation

// The one writer of a record's JSON: every message that carries records (the outbox's requests, the cloud's answers
// and change pages, the client's requests) writes them through here, so they cannot drift apart.

/// A record's members other than its `fields`, as a writer needs them: what a `Record` holds, and what the cloud's
/// stored rows and the device's outbox rows know without building one.
public struct RecordSystemFields: Sendable, Hashable {
    public var recordName: String
    public var recordType: String?
    public var recordChangeTag: ChangeTag?
    public var created: RecordStamp?
    public var modified: RecordStamp?
    public var deleted: Bool?
    public var zoneID: ZoneID?
    /// The parent record's name (`{"parent":{"recordName":…}}`).
    public var parent: String?
    public var share: Reference?

    /// The members given; the rest are left out of the record's JSON.
    public init(
        recordName: String, recordType: String? = nil, recordChangeTag: ChangeTag? = nil, created: RecordStamp? = nil,
        modified: RecordStamp? = nil, deleted: Bool? = nil, zoneID: ZoneID? = nil, parent: String? = nil, share: Reference? = nil
    ) {
        self.recordName = recordName
        self.recordType = recordType
        self.recordChangeTag = recordChangeTag
        self.created = created
        self.modified = modified
        self.deleted = deleted
        self.zoneID = zoneID
        self.parent = parent
        self.share = share
    }

    /// The members of a record value.
    public init(_ record: Record) {
        self.init(
            recordName: record.recordName, recordType: record.recordType, recordChangeTag: record.recordChangeTag,
            created: record.created, modified: record.modified, deleted: record.deleted, zoneID: record.zoneID,
            parent: record.parent?.recordName, share: record.share)
    }
}

/// A record's `fields` member as a writer is given it.
public enum RecordFields: Sendable {
    /// No `fields` member (a tombstone, a deletion).
    case absent
    /// A fields object already in canonical JSON (as the cloud stores it, or `EncodedFields.json()` gives it); the
    /// giver vouches for the bytes.
    case canonical(Data)
    /// Values, written keys sorted.
    case values([String: FieldValue])
    /// A fields object as parsed JSON (some of a stored object's fields), written keys sorted.
    case json([String: JSONValue])
}

/// What consecutive records of one message usually share (their zone; a writer, device and time), kept as written
/// JSON so each is escaped once and copied after.
public struct RecordJSONCache: Sendable {
    /// Off: every part is written afresh (a lone record gains nothing from keeping it).
    fileprivate var enabled = true
    fileprivate var zone: ZoneID?
    fileprivate var zoneJSON: [UInt8] = []
    fileprivate var stamp: RecordStamp?
    fileprivate var stampJSON: [UInt8] = []

    /// An empty cache, for the records of one message.
    public init() {}

    // Spelled out rather than `==` on optionals: these run for every record, and in unoptimized builds the generic
    // `==` costs about what the cache saves.
    fileprivate static func same(_ cached: ZoneID?, _ zone: ZoneID) -> Bool {
        guard let cached, cached.zoneName == zone.zoneName else { return false }
        return same(cached.ownerRecordName, zone.ownerRecordName)
    }

    fileprivate static func same(_ cached: RecordStamp?, _ stamp: RecordStamp) -> Bool {
        guard let cached, cached.timestamp == stamp.timestamp, cached.userRecordName == stamp.userRecordName else { return false }
        return same(cached.deviceID, stamp.deviceID)
    }

    private static func same(_ a: String?, _ b: String?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case (let a?, let b?): a == b
        default: false
        }
    }

    static var off: RecordJSONCache {
        var cache = RecordJSONCache()
        cache.enabled = false
        return cache
    }
}

extension JSONWriter {
    /// Appends a record whose `fields` object `fields` writes (`fields(_:)`, `sortedFields(_:)`), reusing what
    /// `cache` holds.
    public mutating func record(
        _ system: RecordSystemFields, cache: inout RecordJSONCache, fields: (inout JSONWriter) throws -> Void
    ) rethrows {
        recordOpening(system)
        raw(",\"fields\":")
        try fields(&self)
        recordClosing(system, &cache)
    }

    /// Appends a record whose `fields` member `fields` gives, reusing what `cache` holds.
    public mutating func record(_ system: RecordSystemFields, fields: RecordFields, cache: inout RecordJSONCache) {
        recordOpening(system)
        switch fields {
        case .absent: break
        case .canonical(let json):
            raw(",\"fields\":")
            raw(json)
        case .values(let values):
            raw(",\"fields\":")
            self.fields(values)
        case .json(let object):
            raw(",\"fields\":")
            json(.object(object))
        }
        recordClosing(system, &cache)
    }

    /// Appends a record value, reusing what `cache` holds.
    public mutating func record(_ record: Record, cache: inout RecordJSONCache) {
        self.record(RecordSystemFields(record), fields: record.fields.map(RecordFields.values) ?? .absent, cache: &cache)
    }

    /// Appends a record in the web services' shape.
    public mutating func record(_ record: Record) {
        var cache = RecordJSONCache.off
        self.record(record, cache: &cache)
    }

    /// Appends a fields object field by field, for a caller that gives the names in ascending order: the bytes
    /// `fields(_:)` writes for the same fields, without a dictionary to build and sort.
    public mutating func sortedFields(_ write: (inout SortedFieldsWriter) throws -> Void) rethrows {
        var fields = SortedFieldsWriter()
        swap(&fields.writer, &self)  // the fields write straight into this writer's buffer
        defer { swap(&fields.writer, &self) }
        fields.writer.raw("{")
        try write(&fields)
        fields.writer.raw("}")
    }

    /// Appends a JSON array of strings.
    public mutating func strings(_ values: some Sequence<String>) {
        raw("[")
        for (index, value) in values.enumerated() {
            separator(index)
            string(value)
        }
        raw("]")
    }

    /// `{"recordName":…` and the members before the fields, in the order `Record` declares them.
    private mutating func recordOpening(_ system: RecordSystemFields) {
        raw("{\"recordName\":")
        string(system.recordName)
        if let type = system.recordType {
            raw(",\"recordType\":")
            string(type)
        }
        if let tag = system.recordChangeTag {
            raw(",\"recordChangeTag\":")
            string(tag)
        }
    }

    /// The members after the fields, and the closing brace.
    private mutating func recordClosing(_ system: RecordSystemFields, _ cache: inout RecordJSONCache) {
        if let created = system.created {
            raw(",\"created\":")
            cachedStamp(created, &cache)
        }
        if let modified = system.modified {
            raw(",\"modified\":")
            cachedStamp(modified, &cache)
        }
        // Most records carry both: spelled together, one copy instead of three. (Patterns, not `if let`, so that
        // unoptimized builds copy no more than they must on this path.)
        var zoneKeyWritten = false
        switch system.deleted {
        case false?:
            if case .some = system.zoneID {
                raw(",\"deleted\":false,\"zoneID\":")
                zoneKeyWritten = true
            } else {
                raw(",\"deleted\":false")
            }
        case true?:
            if case .some = system.zoneID {
                raw(",\"deleted\":true,\"zoneID\":")
                zoneKeyWritten = true
            } else {
                raw(",\"deleted\":true")
            }
        case nil: break
        }
        if let zone = system.zoneID {
            if !zoneKeyWritten { raw(",\"zoneID\":") }
            cachedZoneID(zone, &cache)
        }
        if let parent = system.parent {
            raw(",\"parent\":{\"recordName\":")
            string(parent)
            raw("}")
        }
        if let share = system.share {
            raw(",\"share\":")
            json(FieldValue.reference(share).jsonValue)
        }
        raw("}")
    }

    /// A zone ID, copied from `cache` when the record before had the same.
    mutating func cachedZoneID(_ zone: ZoneID, _ cache: inout RecordJSONCache) {
        guard cache.enabled else { return zoneID(zone) }
        if !RecordJSONCache.same(cache.zone, zone) {
            var writer = JSONWriter(reserving: 96)
            writer.zoneID(zone)
            cache.zone = zone
            cache.zoneJSON = writer.bytes
        }
        raw(cache.zoneJSON)
    }

    private mutating func cachedStamp(_ stamp: RecordStamp, _ cache: inout RecordJSONCache) {
        guard cache.enabled else { return self.stamp(stamp) }
        if !RecordJSONCache.same(cache.stamp, stamp) {
            var writer = JSONWriter(reserving: 128)
            writer.stamp(stamp)
            cache.stamp = stamp
            cache.stampJSON = writer.bytes
        }
        raw(cache.stampJSON)
    }
}

/// Writes the members of a fields object one at a time (see `JSONWriter.sortedFields(_:)`).
public struct SortedFieldsWriter {
    fileprivate var writer = JSONWriter(reserving: 0)
    private var count = 0

    /// Appends a field; `name` must sort after every name before it.
    public mutating func field(_ name: String, _ value: FieldValue) {
        writer.separator(count)
        writer.string(name)
        writer.raw(":")
        writer.field(value)
        count += 1
    }

    /// Appends a field under a name spelled beforehand; it must sort after every name before it.
    public mutating func field(_ key: FieldKey, _ value: FieldValue) {
        writer.raw(count == 0 ? key.first : key.next)
        writer.field(value)
        count += 1
    }
}

/// A field name spelled once as an object key (`"name":`, and after a comma), for a writer naming the same fields in
/// every record: each is then copied whole rather than escaped again.
public struct FieldKey: Sendable {
    fileprivate let first: [UInt8]
    fileprivate let next: [UInt8]

    /// The key of the field `name`.
    public init(_ name: String) {
        var writer = JSONWriter(reserving: name.utf8.count + 4)
        writer.string(name)
        writer.raw(":")
        first = writer.bytes
        next = [UInt8(ascii: ",")] + writer.bytes
    }
}
