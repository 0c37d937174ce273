import CloudModel
import Foundation

/// One page of a zone's change feed.
struct ZonePage: Sendable {
    var zoneID: ZoneID
    var records: [StoredRecord]
    var token: ChangeToken
    var moreComing: Bool
}

/// Where a page of a zone's change feed starts.
struct ZoneFeedStart {
    var zone: StoredZone
    /// The sequence the page starts after.
    var after: Int64 = 0
    /// The floor of the reader's tokens (see `FeedPosition`).
    var floor: Int64
    var limit: Int
    var includeTombstones: Bool

    /// Where a page starts after a parsed zone token, or from scratch without one (its floor at `head()`, the zone's
    /// feed head); nil when the token is another zone's or older than the zone's compacted horizon.
    static func after(
        _ token: (pk: Int64, position: FeedPosition)?, in zone: StoredZone, limit: Int, head: () async throws -> Int64
    ) async rethrows -> ZoneFeedStart? {
        guard let token else {
            // From scratch there is nothing to delete on the device: tombstones are left out, and those already
            // compacted never concern this reader (the floor says so to the tokens of its later pages).
            return ZoneFeedStart(zone: zone, floor: try await head(), limit: limit, includeTombstones: false)
        }
        guard token.pk == zone.pk, token.position.isValid(horizon: zone.compactedSeq) else { return nil }
        return ZoneFeedStart(zone: zone, after: token.position.seq, floor: token.position.floor, limit: limit, includeTombstones: true)
    }

    /// The token a page ends with: at its last record while more follow, else at the zone's head.
    func token(_ tx: any StoreTransaction, lastSeq: Int64?, moreComing: Bool) async throws -> ChangeToken {
        try await token(lastSeq: lastSeq, moreComing: moreComing) { try await tx.latestSequence(zonePK: zone.pk) }
    }

    /// As above, with the zone's feed head from `head` (asked for the last page only).
    func token(lastSeq: Int64?, moreComing: Bool, head: () async throws -> Int64) async rethrows -> ChangeToken {
        let seq = moreComing ? lastSeq ?? after : max(after, try await head())
        return FeedToken.zone(pk: zone.pk, FeedPosition(seq: seq, floor: floor))
    }
}

extension CloudService {
    /// Reads one page of a zone's changes after a token, inside a read transaction; records past `byteLimit` bytes
    /// (one at least) wait for the next page.
    func zonePage(
        _ tx: any StoreTransaction, _ database: DatabaseKey, _ query: ZoneChangesQuery, byteLimit: Int = CloudLimits.maxResponseBytes
    ) async throws -> ZonePage {
        let (zone, limit) = try await feedZone(tx, database, query)
        if let view = try await viewIfShared(tx, database, zone) { return try await sharedZonePage(tx, view, query, limit: limit, byteLimit: byteLimit) }
        let start = try await feedStart(tx, zone, query, limit: limit)
        var rows = try await tx.changes(zonePK: zone.pk, after: start.after, limit: limit + 1, includeTombstones: start.includeTombstones)
        let cut = Self.keepFitting(&rows, byteLimit: byteLimit)
        let moreComing = cut || rows.count > limit
        if rows.count > limit { rows.removeLast(rows.count - limit) }
        let token = try await start.token(tx, lastSeq: rows.last?.seq, moreComing: moreComing)
        return ZonePage(zoneID: zone.zoneID, records: rows, token: token, moreComing: moreComing)
    }

    /// Keeps the rows that fit in `byteLimit` bytes of answer (one at least); whether any were dropped.
    static func keepFitting(_ rows: inout [StoredRecord], byteLimit: Int) -> Bool {
        var bytes = 0
        for (index, row) in rows.enumerated() {
            bytes += row.fieldsJSON.count + 512
            if index > 0, bytes > byteLimit {
                rows.removeLast(rows.count - index)
                return true
            }
        }
        return false
    }

    /// The token of a zone left for a later request because the answer is full: the one sent, or for a reading from
    /// scratch a token that has seen nothing yet (its floor at the zone's head, as a first page's would have).
    private func deferredToken(_ tx: any StoreTransaction, _ database: DatabaseKey, _ query: ZoneChangesQuery) async throws -> ChangeToken {
        let (zone, limit) = try await feedZone(tx, database, query)
        if let view = try await viewIfShared(tx, database, zone) {
            if let token = query.syncToken {
                _ = try await sharedZonePage(tx, view, ZoneChangesQuery(zoneID: query.zoneID, syncToken: token, resultsLimit: 1), limit: 1, byteLimit: 0)
                return token
            }
            return FeedToken.sharedZone(pk: zone.pk, epoch: view.epoch, FeedPosition(seq: 0, floor: try await tx.latestSequence(zonePK: zone.pk)))
        }
        let start = try await feedStart(tx, zone, query, limit: limit)  // refuses an expired token now rather than later
        return query.syncToken ?? FeedToken.zone(pk: zone.pk, FeedPosition(seq: 0, floor: start.floor))
    }

    /// Checks a zone's page request (database, zone, limit); every refusal is thrown here, before anything is written.
    func feedZone(_ tx: any StoreTransaction, _ database: DatabaseKey, _ query: ZoneChangesQuery) async throws -> (StoredZone, limit: Int) {
        if database.scope == .public {
            throw ServerError(.badRequest, "the public database has no change feed; poll it with records/query")
        }
        guard let zone = try await resolveZone(tx, database, query.zoneID, create: false) else {
            throw ServerError(.zoneNotFound, "zone '\(query.zoneID.zoneName)' not found")
        }
        if zone.zoneID.isDefault {
            throw ServerError(.badRequest, "the default zone has no change feed; use a custom zone")
        }
        return (zone, CloudLimits.pageSize(query.resultsLimit))
    }

    /// Where a page of the owner's own zone feed starts, from the query's token (expired tokens are refused).
    func feedStart(_ tx: any StoreTransaction, _ zone: StoredZone, _ query: ZoneChangesQuery, limit: Int) async throws -> ZoneFeedStart {
        let parsed = try query.syncToken.map(FeedToken.parseZone)
        guard let start = try await ZoneFeedStart.after(parsed, in: zone, limit: limit, head: { try await tx.latestSequence(zonePK: zone.pk) })
        else {
            throw ServerError(.changeTokenExpired, "the change token of zone '\(zone.name)' expired; fetch the zone again from scratch")
        }
        return start
    }

    /// Writes one page of a zone's changes (its zone begun in `answer`), each record written as it is read (for
    /// pages of whole records, without `desiredKeys`). A participant's view of a shared zone, which filters what it
    /// reads, goes through `zonePage`.
    private func writeZonePage(
        _ tx: any StoreTransaction, _ database: DatabaseKey, _ query: ZoneChangesQuery, byteLimit: Int, into answer: inout ZoneChangesWriter
    ) async throws {
        let (zone, limit) = try await feedZone(tx, database, query)
        if let view = try await viewIfShared(tx, database, zone) {
            try await Self.writePage(try await sharedZonePage(tx, view, query, limit: limit, byteLimit: byteLimit), desired: nil, into: &answer)
            return
        }
        let start = try await feedStart(tx, zone, query, limit: limit)
        let rows = try await tx.changes(
            zonePK: start.zone.pk, after: start.after, limit: start.limit + 1, includeTombstones: start.includeTombstones)
        try await Self.writeFeedPage(rows, start, byteLimit: byteLimit, into: &answer) { try await tx.latestSequence(zonePK: zone.pk) }
    }

    /// Writes a page of an owner's zone feed from its rows (`start.limit` and one more, to tell whether more come);
    /// `head` gives the zone's feed head, asked for the last page only. The position its token ends at when more
    /// come (where the next page starts), else nil.
    @discardableResult
    private static func writeFeedPage(
        _ rows: [StoredRecord], _ start: ZoneFeedStart, byteLimit: Int, into answer: inout ZoneChangesWriter, head: () async throws -> Int64
    ) async throws -> Int64? {
        try await writePage(rows, zoneID: start.zone.zoneID, limit: start.limit, byteLimit: byteLimit, desired: nil, into: &answer) {
            lastSeq, moreComing in (try await start.token(lastSeq: lastSeq, moreComing: moreComing, head: head), moreComing)
        }
    }

    /// Writes a page read whole (`zonePage`, `sharedZonePage`) with the fields `desired`.
    private static func writePage(_ page: ZonePage, desired: Set<String>?, into answer: inout ZoneChangesWriter) async throws {
        try await writePage(page.records, zoneID: page.zoneID, limit: .max, byteLimit: .max, desired: desired, into: &answer) { _, _ in
            (page.token, page.moreComing)
        }
    }

    /// The one writer of a zone's page, its zone begun in `answer`: at most `limit` of `rows`, and no more once the
    /// answer holds `byteLimit` more bytes (one at least), then the token `end` gives for the sequence of the last
    /// one written and whether rows were left, with whether more come. That last sequence when more come, else nil.
    @discardableResult
    private static func writePage(
        _ rows: [StoredRecord], zoneID: ZoneID, limit: Int, byteLimit: Int, desired: Set<String>?, into answer: inout ZoneChangesWriter,
        end: (_ lastSeq: Int64?, _ rowsLeft: Bool) async throws -> (ChangeToken, moreComing: Bool)
    ) async throws -> Int64? {
        // A record takes its fields plus 450-odd bytes of system fields: make room for the page at once.
        answer.reserve(min(byteLimit, rows.prefix(limit).reduce(64) { $0 + $1.fieldsJSON.count + 512 }))
        let written = try writeRecords(
            rows, zoneID: zoneID, limit: limit, byteLimit: byteLimit == .max ? .max : answer.byteCount + byteLimit, desired: desired,
            into: &answer)
        let (token, moreComing) = try await end(written.lastSeq, written.moreComing)
        answer.endZone(syncToken: token, moreComing: moreComing)
        return moreComing ? written.lastSeq : nil
    }

    /// The usual page, whole records of one of the caller's own custom zones, read by one `readSingle` (one round
    /// trip on PostgreSQL where a transaction takes four). Nil when the request is anything else, or the zone or token
    /// is not as usual: the general path then answers it, refusals included.
    private func ownZonePage(_ queries: [ZoneChangesQuery], _ database: DatabaseKey) async throws -> [UInt8]? {
        guard queries.count == 1, let query = queries.first, database.scope == .private, query.desiredKeys == nil, !query.zoneID.isDefault
        else { return nil }
        if Self.namesAnotherOwner(query.zoneID, database) { return nil }
        let token: (pk: Int64, position: FeedPosition)?
        if let syncToken = query.syncToken {
            guard let parsed = try? FeedToken.parseZone(syncToken) else { return nil }
            token = parsed
        } else {
            token = nil
        }
        let limit = CloudLimits.pageSize(query.resultsLimit)
        let key = FeedReadAhead.Key(
            database: database, zoneName: query.zoneID.zoneName, after: token?.position.seq ?? 0, limit: limit + 1,
            includeTombstones: token != nil)
        guard let feed = try await readFeed(key) else { return nil }
        guard let start = await ZoneFeedStart.after(token, in: feed.zone, limit: limit, head: { feed.head }) else { return nil }
        var answer = ZoneChangesWriter(reserving: 64 * 1024)
        answer.beginZone(query.zoneID)
        let lastSeq = try await Self.writeFeedPage(
            feed.rows, start, byteLimit: CloudLimits.maxResponseBytes - answer.byteCount, into: &answer) { feed.head }
        if let readAhead, let lastSeq, FeedReadAhead.fits(feed.rows) {
            let next = FeedReadAhead.Key(
                database: database, zoneName: key.zoneName, after: lastSeq, limit: key.limit, includeTombstones: true)
            readAhead.start(next) { [store] in
                let page = try await store.readSingle { try await $0.zoneFeed(next) }
                return page.flatMap { FeedReadAhead.fits($0.rows) ? $0 : nil }
            }
        }
        return answer.finish()
    }

    /// The feed page `key` names: the one read ahead for it, else read now (also when reading it ahead failed).
    private func readFeed(_ key: FeedReadAhead.Key) async throws -> ZoneFeedRead? {
        if let ahead = readAhead?.take(key), let feed = try? await ahead.value { return feed }
        return try await store.readSingle { try await $0.zoneFeed(key) }
    }

    /// Writes feed rows into the open page, at most `limit`, and no more once the answer holds `byteLimit` bytes (one
    /// at least); the sequence of the last one written, and whether more follow.
    static func writeRecords(
        _ rows: [StoredRecord], zoneID: ZoneID, limit: Int, byteLimit: Int, desired: Set<String>? = nil, into answer: inout ZoneChangesWriter
    ) throws -> (lastSeq: Int64?, moreComing: Bool) {
        var lastSeq: Int64?
        for (index, record) in rows.enumerated() {
            guard index < limit, index == 0 || answer.byteCount < byteLimit else { return (lastSeq, true) }
            try answer.record(record, zoneID: zoneID, desiredKeys: desired)
            lastSeq = record.seq
        }
        return (lastSeq, false)
    }

    /// `changes/zone`: a page per zone asked for (a zone named twice is answered once, as first asked); a zone's
    /// failure is reported inline. The answer holds `CloudLimits.maxResponseBytes` of records (and one record more
    /// at most): zones that do not fit answer no records, `moreComing` and a token to ask with again.
    func zoneChanges(_ request: ZoneChangesRequest, _ database: DatabaseKey, _ caller: Caller) async throws -> ServiceResponse {
        guard !request.zones.isEmpty, request.zones.count <= CloudLimits.maxOperationsPerRequest else {
            throw ServerError(.badRequest, "ask for 1 to \(CloudLimits.maxOperationsPerRequest) zones")
        }
        if database.scope == .public {
            throw ServerError(.badRequest, "the public database has no change feed; poll it with records/query")
        }
        var named = Set<ZoneID>()
        let queries = request.zones.filter { named.insert(ZoneID(zoneName: $0.zoneID.zoneName, ownerRecordName: $0.zoneID.ownerRecordName)).inserted }
        // `numbersAsStrings` for the whole request, or per zone as the zone's own keys override the request's.
        let stringZones = Set(queries.filter { $0.numbersAsStrings ?? request.numbersAsStrings ?? false }.map(\.zoneID.zoneName))
        func answered(_ body: [UInt8]) throws -> ServiceResponse {
            let response = ServiceResponse(status: 200, body: body)
            return stringZones.isEmpty ? response : try response.numbersAsStrings(zoneNames: stringZones)
        }
        if let page = try await ownZonePage(queries, database) { return try answered(page) }
        let body = try await store.read { tx -> [UInt8] in
            var answer = ZoneChangesWriter(reserving: 64 * 1024)
            for query in queries {
                answer.beginZone(query.zoneID)
                let room = CloudLimits.maxResponseBytes - answer.byteCount
                do {
                    if room <= 0 {
                        let token = try await self.deferredToken(tx, database, query)
                        answer.endZone(syncToken: token, moreComing: true)
                    } else if query.desiredKeys == nil {
                        try await self.writeZonePage(tx, database, query, byteLimit: room, into: &answer)
                    } else {
                        let page = try await self.zonePage(tx, database, query, byteLimit: room)
                        try await Self.writePage(page, desired: query.desiredKeys.map(Set.init), into: &answer)
                    }
                } catch let error as ServerError {
                    answer.failZone(error)
                }
            }
            return answer.finish()
        }
        return try answered(body)
    }

    /// `records/changes`: the older single-zone form; errors are request-level.
    func recordChanges(_ request: RecordChangesRequest, _ database: DatabaseKey, _ caller: Caller) async throws -> ServiceResponse {
        let query = {
            var query = ZoneChangesQuery(zoneID: request.zoneID ?? .default, syncToken: request.syncToken, resultsLimit: request.resultsLimit)
            query.desiredKeys = request.desiredKeys
            return query
        }()
        let body = try await store.read { tx -> [UInt8] in
            let page = try await self.zonePage(tx, database, query)
            var answer = ZoneChangesWriter(reserving: 64 * 1024, form: .recordChanges)
            answer.beginZone(page.zoneID)
            try await Self.writePage(page, desired: query.desiredKeys.map(Set.init), into: &answer)
            return answer.finish()
        }
        let response = ServiceResponse(status: 200, body: body)
        return request.numbersAsStrings == true ? try response.numbersAsStrings() : response
    }

    /// `changes/database` (and the older `zones/changes`): zones changed or deleted after a token.
    func databaseChanges(_ request: DatabaseChangesRequest, _ database: DatabaseKey, legacy: Bool) async throws -> ServiceResponse {
        if database.scope == .public {
            throw ServerError(.badRequest, "the public database has no change feed; poll it with records/query")
        }
        let limit = CloudLimits.pageSize(request.resultsLimit)
        let token = request.syncToken
        return try await store.read { tx -> ServiceResponse in
            var position = FeedPosition(seq: 0)
            if let token {
                position = try FeedToken.parseDatabase(token)
                guard position.isValid(horizon: try await tx.databaseHorizon(database)) else {
                    throw ServerError(.changeTokenExpired, "the database change token expired; fetch every zone again")
                }
            } else {
                // Entries compacted before a reading from scratch never concern it (see `FeedPosition`).
                position.floor = try await tx.latestDatabaseSequence(database)
            }
            let after = position.seq
            var entries = try await tx.databaseChanges(database, after: after, limit: limit + 1)
            let moreComing = entries.count > limit
            if moreComing { entries.removeLast(entries.count - limit) }
            position.seq = moreComing ? entries.last!.seq : max(after, try await tx.latestDatabaseSequence(database))
            let owner = database.owner
            let next = FeedToken.database(position)
            // The shared database's rows name other owners' zones (see `SharedZoneName`).
            let zoneID: (String) -> ZoneID = { name in
                database.scope == .shared ? SharedZoneName.decode(name) : ZoneID(zoneName: name, ownerRecordName: owner)
            }
            if legacy {
                let zones = entries.map { entry -> Zone in
                    var zone = Zone(zoneID: zoneID(entry.zoneName))
                    if entry.kind != .changed { zone.deleted = true }
                    if entry.kind == .purged { zone.purged = true }
                    return zone
                }
                return try .encode(ZonesChangesResponse(zones: zones, syncToken: next, moreComing: moreComing))
            }
            let zones = entries.map { entry in
                ZoneChange(
                    zoneID: zoneID(entry.zoneName),
                    deleted: entry.kind == .changed ? nil : true, purged: entry.kind == .purged ? true : nil)
            }
            return ServiceResponse(status: 200, body: DatabaseChangesResponse(zones: zones, syncToken: next, moreComing: moreComing).jsonBody)
        }
    }
}
