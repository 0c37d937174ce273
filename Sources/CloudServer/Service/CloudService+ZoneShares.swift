import CloudModel
import Foundation

/// Zone-wide shares, as CloudKit makes them: the share record `cloudkit.zoneshare` shares every record of its custom
/// zone, present and future, whatever its parent. They are the shares of root records in every other way (one share
/// model in the store): a zone-wide share is stored as a share whose root is its own record name, so each participant's
/// accepted roots hold `cloudkit.zoneshare` and everything that follows roots (who hears of a write, who may read) works
/// unchanged; only what such a root opens differs: the whole zone.
enum ZoneShare {
    /// The record name, and the root in the store, of a zone-wide share.
    static let name = "cloudkit.zoneshare"

    /// A zone and its records take part in one share at most: a zone shared whole has no record shares.
    static func recordShareRefused(_ zone: StoredZone, root: String) -> ServerError {
        ServerError(
            .badRequest,
            "'\(root.prefix(255))' cannot be shared on its own: zone '\(zone.name)' is shared whole (cloudkit.zoneshare), "
                + "and a zone with its records takes part in one share only; delete the zone's share first")
    }

    /// ... nor a zone whose records are shared one hierarchy at a time.
    static func zoneShareRefused(_ zone: StoredZone) -> ServerError {
        ServerError(
            .badRequest,
            "zone '\(zone.name)' cannot be shared whole (cloudkit.zoneshare): records in it are already shared, and a zone "
                + "with its records takes part in one share only; delete those shares first")
    }
}

extension ShareRow {
    /// Whether the share is of its whole zone.
    var isZoneWide: Bool { recordName == ZoneShare.name }
}

extension SharedView {
    /// The participant's permission on the whole zone, when they accepted its zone-wide share.
    var wholeZone: ShareParticipantPermission? { roots[ZoneShare.name] }

    /// The roots a query or feed is narrowed to: nil when the whole zone is shared with the participant.
    var narrowingRoots: Set<String>? { wholeZone == nil ? rootNames : nil }
}

extension CloudService {
    /// The checks of saving a share in a zone, by the one-share-per-zone rule: a zone-wide share in a zone without record
    /// shares, a record share in a zone without a zone-wide one.
    func checkOneShare(_ tx: any StoreTransaction, _ zone: StoredZone, root: String, existing: ShareRow?) async throws {
        guard existing == nil else { return }  // replacing a share's participants
        if root == ZoneShare.name {
            if try await tx.zoneHasShares(zonePK: zone.pk) { throw ZoneShare.zoneShareRefused(zone) }
        } else if try await tx.share(zonePK: zone.pk, root: ZoneShare.name) != nil {
            throw ZoneShare.recordShareRefused(zone, root: root)
        }
    }

    /// A participant's write in a zone shared whole with them: read-write may create, change and delete any record but
    /// the share record; read-only nothing.
    func checkWholeZoneWrite(_ operation: RecordOperation, live: RecordLink?, permission: ShareParticipantPermission) throws {
        let name = operation.record.recordName
        guard permission == .readWrite else {
            throw ServerError(.accessDenied, "zone shared with you read-only: only the owner can change '\(name)'")
        }
        if live?.recordType == ShareSchema.recordType || operation.record.recordType == ShareSchema.recordType {
            throw ServerError(.accessDenied, "only the owner can change or delete the zone's share '\(name)'")
        }
        if live == nil, operation.operationType == .update || operation.operationType == .replace {
            throw ServerError(.notFound, "record '\(name)' not found")
        }
    }

    /// A share record deleted through `records/modify` by the zone's owner (how CloudKit JS removes a share): the share
    /// is revoked, as `shares/modify` `delete` revokes it. Nil when `name` is no share of the zone.
    func deleteShareRecord(
        _ tx: any StoreTransaction, _ zone: StoredZone, name: String, batch: inout ShareBatch
    ) async throws -> ItemOutcome? {
        guard let share = try await tx.share(zonePK: zone.pk, recordName: name) else { return nil }
        try await revokeShare(tx, zone, share, stamp: batch.stamp, &batch.effects)
        return .deleted(name, zone.zoneID)
    }
}
