// Writing the change feeds' pages: `changes/zone` (and its older single-zone form `records/changes`) and
// `changes/database`.

/// Writes a `changes/zone` answer zone by zone, each zone's records as they are read, as `ZoneChangesResponse`
/// encodes it; or, in the `.recordChanges` form, the one page a `records/changes` answer is (`RecordChangesResponse`).
public struct ZoneChangesWriter: Sendable {
    /// Which answer is written.
    public enum Form: Sendable {
        /// `{"zones":[page, …]}`.
        case zoneChanges
        /// A single page, the whole answer.
        case recordChanges
    }

    private var writer: JSONWriter
    private let form: Form
    private var zones = 0
    private var records = 0
    private var cache = RecordJSONCache()
    /// The open zone: its ID and where its page begins.
    private var open: (zoneID: ZoneID, start: Int)?

    /// An answer with room for `capacity` bytes.
    public init(reserving capacity: Int = 64 * 1024, form: Form = .zoneChanges) {
        writer = JSONWriter(reserving: capacity)
        self.form = form
        if form == .zoneChanges { writer.raw("{\"zones\":[") }
    }

    /// The bytes written so far.
    public var byteCount: Int { writer.bytes.count }

    /// Makes room for `count` more bytes at once.
    public mutating func reserve(_ count: Int) { writer.reserve(count) }

    /// Begins a zone's page; its records follow, then `endZone` or `failZone`.
    public mutating func beginZone(_ zoneID: ZoneID) {
        precondition(open == nil && (form == .zoneChanges || zones == 0), "one page at a time, and one only for records/changes")
        writer.separator(zones)
        zones += 1
        open = (zoneID, writer.bytes.count)
        records = 0
        writer.raw("{\"zoneID\":")
        writer.cachedZoneID(zoneID, &cache)
        writer.raw(",\"records\":[")
    }

    /// Appends a record whose `fields` member `fields` gives to the open page.
    public mutating func record(_ system: RecordSystemFields, fields: RecordFields) {
        writer.separator(records)
        records += 1
        writer.record(system, fields: fields, cache: &cache)
    }

    /// Appends a record value to the open page.
    public mutating func record(_ record: Record) {
        writer.separator(records)
        records += 1
        writer.record(record, cache: &cache)
    }

    /// Ends the open page with the token to ask with next, and whether more changes wait.
    public mutating func endZone(syncToken: ChangeToken, moreComing: Bool) {
        precondition(open != nil, "no zone begun")
        open = nil
        writer.raw("],\"syncToken\":")
        writer.string(syncToken.rawValue)
        writer.raw(",\"moreComing\":")
        writer.bool(moreComing)
        writer.raw("}")
    }

    /// Replaces the open page, whatever of it was written, with the zone's failure (`ZoneChanges.failure`).
    public mutating func failZone(_ error: ServerError) {
        guard let (zoneID, start) = open else { preconditionFailure("no zone begun") }
        open = nil
        writer.truncate(to: start)
        writer.raw("{\"zoneID\":")
        writer.cachedZoneID(zoneID, &cache)
        writer.raw(",\"records\":[],\"moreComing\":false,\"serverErrorCode\":")
        writer.string(error.serverErrorCode.wireCode.rawValue)
        if !error.serverErrorCode.isDocumented {
            writer.raw(",\"condition\":")
            writer.string(error.serverErrorCode.rawValue)
        }
        writer.raw(",\"reason\":")
        writer.string(error.reason)
        if let retryAfter = error.retryAfter {
            writer.raw(",\"retryAfter\":")
            writer.double(retryAfter)
        }
        writer.raw("}")
    }

    /// The answer, every page ended.
    public consuming func finish() -> [UInt8] {
        precondition(open == nil, "a zone's page is still open")
        if form == .zoneChanges { writer.raw("]}") }
        return writer.bytes
    }
}

extension DatabaseChangesResponse {
    /// The answer as JSON, keys sorted: the bytes `JSONWriter.encoder` writes for it, without the encoder.
    public var jsonBody: [UInt8] {
        var writer = JSONWriter(reserving: 96 + zones.count * 96)
        writer.raw("{\"moreComing\":")
        writer.bool(moreComing)
        writer.raw(",\"syncToken\":")
        writer.string(syncToken.rawValue)
        writer.raw(",\"zones\":[")
        for (index, zone) in zones.enumerated() {
            writer.separator(index)
            writer.raw("{")
            if let deleted = zone.deleted {
                writer.raw("\"deleted\":")
                writer.bool(deleted)
                writer.raw(",")
            }
            if let purged = zone.purged {
                writer.raw("\"purged\":")
                writer.bool(purged)
                writer.raw(",")
            }
            writer.raw("\"zoneID\":{")
            if let owner = zone.zoneID.ownerRecordName {
                writer.raw("\"ownerRecordName\":")
                writer.string(owner)
                writer.raw(",")
            }
            writer.raw("\"zoneName\":")
            writer.string(zone.zoneID.zoneName)
            writer.raw("}}")
        }
        writer.raw("]}")
        return writer.bytes
    }
}
