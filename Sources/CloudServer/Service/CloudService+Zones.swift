import CloudModel
import Foundation

extension CloudService {
    private func zoneJSON(_ tx: any StoreTransaction, _ zone: StoredZone) async throws -> Zone {
        var result = Zone(zoneID: zone.zoneID, atomic: !zone.zoneID.isDefault)
        if !zone.zoneID.isDefault {
            result.syncToken = FeedToken.zone(pk: zone.pk, FeedPosition(seq: try await tx.latestSequence(zonePK: zone.pk)))
        }
        return result
    }

    /// `zones/list`: the default zone and, in the private database, the custom zones.
    func listZones(_ database: DatabaseKey) async throws -> ServiceResponse {
        if database.scope == .shared { return try await listSharedZones(database) }
        let owner = database.scope == .public ? nil : database.owner
        let zones = try await store.read { tx -> [ZoneResult] in
            var results = [ZoneResult.zone(Zone(zoneID: ZoneID(zoneName: ZoneID.defaultZoneName, ownerRecordName: owner), atomic: false))]
            for zone in try await tx.zones(database) where !zone.zoneID.isDefault {
                results.append(.zone(try await self.zoneJSON(tx, zone)))
            }
            return results
        }
        return try .encode(ZonesResponse(zones: zones))
    }

    /// `zones/lookup`: each zone, or its `ZONE_NOT_FOUND` / `USER_DELETED_ZONE`.
    func lookupZones(_ request: LookupZonesRequest, _ database: DatabaseKey) async throws -> ServiceResponse {
        let items = request.zones
        let zones = try await store.read { tx -> [ZoneResult] in
            try await items.asyncMap { item in
                do {
                    if item.zoneID.isDefault, database.scope != .shared {
                        let owner = database.scope == .public ? nil : database.owner
                        return .zone(Zone(zoneID: ZoneID(zoneName: ZoneID.defaultZoneName, ownerRecordName: owner), atomic: false))
                    }
                    guard let zone = try await self.resolveZone(tx, database, item.zoneID, create: false) else {
                        throw ServerError(.zoneNotFound, "zone '\(item.zoneID.zoneName)' not found")
                    }
                    if let view = try await self.viewIfShared(tx, database, zone) { return .zone(try await self.sharedZoneJSON(tx, view)) }
                    return .zone(try await self.zoneJSON(tx, zone))
                } catch var error as ServerError {
                    error.zoneID = item.zoneID
                    return .failure(error)
                }
            }
        }
        return try .encode(ZonesResponse(zones: zones))
    }

    /// `zones/modify`: create, delete, or purge (delete as the user deleting their data) custom zones.
    func modifyZones(_ request: ModifyZonesRequest, _ database: DatabaseKey, _ caller: Caller) async throws -> ServiceResponse {
        guard database.scope == .private else {
            throw ServerError(.badRequest, "zones can only be created or deleted in the private database")
        }
        guard !request.operations.isEmpty, request.operations.count <= CloudLimits.maxOperationsPerRequest else {
            throw ServerError(.badRequest, "send 1 to \(CloudLimits.maxOperationsPerRequest) zone operations")
        }
        let operations = request.operations
        let now = nowMillis
        let results = try await write(notifying: { tx -> ([ZoneResult], [ChangeNotice]) in
            var changed = false
            var sharing = ShareEffects()
            let results = try await operations.asyncMap { operation -> ZoneResult in
                let zoneID = operation.zone.zoneID
                do {
                    if Self.namesAnotherOwner(zoneID, database) {
                        throw ServerError(.accessDenied, "you can only change zones you own")
                    }
                    guard !zoneID.isDefault else { throw ServerError(.badRequest, "the default zone cannot be created or deleted") }
                    guard Validation.isName(zoneID.zoneName, maxLength: 128, extra: "._-") else {
                        throw ServerError(.badRequest, "zone names are 1 to 128 letters, digits, . _ -")
                    }
                    switch operation.operationType {
                    case .create:
                        var zone = try await tx.zone(database, name: zoneID.zoneName)
                        if zone == nil { zone = try await tx.createZone(database, name: zoneID.zoneName) }
                        guard let zone else { throw ServerError(.internalError, "zone '\(zoneID.zoneName)' was not created") }
                        try await tx.noteZoneChange(database, zoneName: zone.name, kind: .changed, seq: try await tx.nextSequence(.database(database)), now: now)
                        changed = true
                        return .zone(try await self.zoneJSON(tx, zone))
                    case .delete, .purge:
                        guard let zone = try await tx.zone(database, name: zoneID.zoneName) else {
                            throw ServerError(.zoneNotFound, "zone '\(zoneID.zoneName)' not found")
                        }
                        let purge = operation.operationType == .purge
                        try await self.noteZoneRemovedForParticipants(tx, zone, now: now, &sharing)
                        try await tx.deleteZone(zone, purged: purge)
                        try await tx.noteZoneChange(
                            database, zoneName: zone.name, kind: purge ? .purged : .deleted, seq: try await tx.nextSequence(.database(database)), now: now)
                        changed = true
                        var result = Zone(zoneID: zone.zoneID)
                        result.deleted = true
                        if purge { result.purged = true }
                        return .zone(result)
                    }
                } catch var error as ServerError {
                    error.zoneID = zoneID
                    return .failure(error)
                }
            }
            let own: [ChangeNotice] = changed ? [.database(database, zones: nil, writerDevice: caller.deviceID)] : []
            return (results, own + Self.shareNotices(sharing, writer: caller))
        })
        return try .encode(ZonesResponse(zones: results))
    }
}
