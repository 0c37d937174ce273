import CloudModel
import Foundation
import SQLiteDB

extension CloudService {
    /// `records/query`: filtered, sorted, paged live records of a type, evaluated in SQL a page at a time.
    /// The continuation marker holds the sort key of the last record looked at: the next page starts after it, so
    /// records written between pages neither shift others out of the paging nor bring them back. `zoneWide` runs
    /// the query over every zone of the database in zone name order (the marker also names the zone it stopped in).
    func queryRecords(_ request: QueryRequest, _ database: DatabaseKey, _ caller: Caller) async throws -> ServiceResponse {
        let limit = CloudLimits.pageSize(request.resultsLimit)
        let plan = try QueryPlan(request.query)
        let zoneWide = request.zoneWide ?? false
        if zoneWide, database.scope == .shared {
            throw ServerError(.badRequest, "zoneWide queries the private or public database; in the shared database name a zoneID")
        }
        let (startZone, startMarker) = zoneWide ? try Self.zoneWideMarker(request.continuationMarker) : (nil, request.continuationMarker)
        let start = try startMarker.map(plan.position(of:))
        let recordType = request.query.recordType
        let desired = request.desiredKeys.map(Set.init)
        let query = request.query
        let response = try await store.read { tx -> ServiceResponse in
            try Schema.checkIndexes(query, fields: try await tx.schemaFields(container: database.container, recordType: recordType) ?? [:])
            var zones: [StoredZone] = []
            if zoneWide {
                var seen = Set<Int64>()
                let all = [try await self.resolveZone(tx, database, nil, create: false)].compactMap { $0 } + (try await tx.zones(database))
                zones = all.filter { seen.insert($0.pk).inserted }.sorted { $0.name < $1.name }
                if let startZone { zones.removeAll { $0.name < startZone } }
            } else if let zone = try await self.resolveZone(tx, database, request.zoneID, create: false) {
                zones = [zone]
            }
            var answer = RecordsResponseWriter(reserving: 4096)
            var count = 0
            var bytes = 0
            var marker: String?
            for (index, zone) in zones.enumerated() {
                let position = index == 0 && (!zoneWide || startZone == zone.name) ? start : nil
                let page = try await self.queryPage(tx, database, zone, plan, after: position, limit: limit - count, bytesLeft: CloudLimits.maxResponseBytes - bytes)
                for record in page.records {
                    try answer.record(record, zoneID: zone.zoneID, desiredKeys: desired)
                    bytes += record.fieldsJSON.count + 512
                }
                count += page.records.count
                if let next = page.next {
                    let inner = plan.marker(after: next)
                    marker = zoneWide ? Self.zoneWideMarker(zone: zone.name, inner: inner) : inner
                    break
                }
                if zoneWide, count >= limit || bytes >= CloudLimits.maxResponseBytes, index + 1 < zones.count {
                    marker = Self.zoneWideMarker(zone: zones[index + 1].name, inner: nil)
                    break
                }
            }
            return ServiceResponse(status: 200, body: answer.finish(continuationMarker: marker))
        }
        return request.numbersAsStrings == true ? try response.numbersAsStrings() : response
    }

    /// One zone's part of a page: at most `limit` records and about `bytesLeft` bytes (one at least), and the key to
    /// go on from when there may be more.
    private func queryPage(
        _ tx: any StoreTransaction, _ database: DatabaseKey, _ zone: StoredZone, _ plan: QueryPlan, after start: [SQLValue]?, limit: Int, bytesLeft: Int
    ) async throws -> (records: [StoredRecord], next: [SQLValue]?) {
        let recordType = plan.recordType
        let roots = try await viewIfShared(tx, database, zone)?.narrowingRoots
        var page: [(record: StoredRecord, key: [SQLValue])] = []
        var position = start
        var moreComing = false
        if plan.residual == nil, plan.fieldFilter == nil {
            // Column conditions only: SQL answers exactly the page.
            let rows = try await tx.queryRecords(zonePK: zone.pk, recordType: recordType, plan: plan, after: position, roots: roots, limit: limit + 1)
            moreComing = rows.count > limit
            page = rows.prefix(limit).compactMap { row in row.record.map { ($0, row.key) } }
            position = page.last?.key ?? position
        } else {
            // Filters no index helps: rows are read in order, a bounded number per request; the marker is the
            // last one looked at, so a page may come back short (even empty) with more to come.
            var scanned = 0
            scanning: while true {
                let chunk = try await tx.queryRecords(
                    zonePK: zone.pk, recordType: recordType, plan: plan, after: position, roots: roots, limit: Self.queryChunk)
                for row in chunk {
                    scanned += 1
                    position = row.key
                    if let record = row.record, try plan.residual?.matches(record, zoneID: zone.zoneID) ?? true {
                        page.append((record, row.key))
                    }
                    if page.count == limit || scanned == Self.queryScanBudget {
                        moreComing = true
                        break scanning
                    }
                }
                if chunk.count < Self.queryChunk { break }
            }
        }
        // At most `bytesLeft` of records (one at least); the rest comes on the next page.
        var bytes = 0
        for (index, row) in page.enumerated() {
            bytes += row.record.fieldsJSON.count + 512
            if index > 0, bytes > bytesLeft {
                page.removeLast(page.count - index)
                position = page.last?.key
                moreComing = true
                break
            }
        }
        return (page.map(\.record), moreComing ? position : nil)
    }

    /// A zone-wide marker: the zone to go on in, and the marker inside it (nil: from its start).
    private static func zoneWideMarker(zone: String, inner: String?) -> String {
        "W" + Data(zone.utf8).base64EncodedString() + "~" + (inner ?? "")
    }

    private static func zoneWideMarker(_ marker: String?) throws -> (zone: String?, inner: String?) {
        guard let marker else { return (nil, nil) }
        let parts = marker.dropFirst().split(separator: "~", maxSplits: 1, omittingEmptySubsequences: false)
        guard marker.first == "W", parts.count == 2, let data = Data(base64Encoded: String(parts[0])), let zone = String(data: data, encoding: .utf8) else {
            throw ServerError(.badRequest, "continuationMarker is not one this cloud issued for this query")
        }
        return (zone, parts[1].isEmpty ? nil : String(parts[1]))
    }
}
