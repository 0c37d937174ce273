import CloudModel
import Crypto
import Foundation

/// Shares by the short GUIDs of their URLs, as CloudKit JS resolves and accepts them: `records/resolve` answers the
/// share to its owner and the users it names; `records/accept` accepts the caller's invitation. A GUID opens nothing
/// by itself: only the share's owner and participants find it.
extension CloudService {
    /// A share's short GUID: a digest of where it lives (the same for every caller, so a URL can be passed on).
    static func shortGUID(_ zone: StoredZone, _ share: ShareRow) -> String {
        let digest = SHA256.hash(data: Data("\(zone.database.container)\n\(zone.database.owner)\n\(zone.name)\n\(share.recordName)".utf8))
        return digest.prefix(12).map { String(format: "%02x", $0) }.joined()
    }

    /// `records/resolve`: the shares of the GUIDs the caller owns or is named in, `NOT_FOUND` for the others.
    func resolveShareLinks(_ request: ShortGUIDsRequest, _ database: DatabaseKey, _ caller: Caller) async throws -> ServiceResponse {
        let user = try caller.requireUser()
        try Self.checkCount(request)
        let results = try await store.read { tx -> [ShareLinkResult] in
            var known = try await self.sharesByGUID(tx, container: database.container, user: user, owned: true)
            known.merge(try await self.sharesByGUID(tx, container: database.container, user: user, owned: false)) { owned, _ in owned }
            var results: [ShareLinkResult] = []
            for guid in request.shortGUIDs {
                guard let (zone, share) = known[guid.value] else {
                    results.append(.failure(Self.unknownGUID(guid.value)))
                    continue
                }
                let info = try await self.shareInfo(tx, zone, share, currentUser: zone.database.owner == user ? nil : user)
                results.append(.found(.init(shortGUID: guid.value, zoneID: zone.zoneID, rootRecordName: share.isZoneWide ? nil : share.rootRecordName, share: info)))
            }
            return results
        }
        return try .encode(ShareLinksResponse(results: results))
    }

    /// `shared/records/accept`: accepts the caller's invitations named by GUID.
    func acceptShareLinks(_ request: ShortGUIDsRequest, _ database: DatabaseKey, _ caller: Caller) async throws -> ServiceResponse {
        let user = try caller.requireUser()
        try Self.checkCount(request)
        let stamp = RecordStamp(timestamp: nowMillis, userRecordName: user, deviceID: caller.deviceID)
        let results = try await write(notifying: { tx -> ([ShareLinkResult], [ChangeNotice]) in
            let known = try await self.sharesByGUID(tx, container: database.container, user: user, owned: false)
            var effects = ShareEffects()
            var results: [ShareLinkResult] = []
            for guid in request.shortGUIDs {
                guard let (zone, share) = known[guid.value] else {
                    results.append(.failure(Self.unknownGUID(guid.value)))
                    continue
                }
                do {
                    let reference = ShareReference(shareRecordName: share.recordName, zoneID: zone.zoneID)
                    let info = try await self.acceptOrLeave(reference, database, stamp: stamp, leave: false, tx: tx, &effects)
                    results.append(.found(.init(shortGUID: guid.value, zoneID: zone.zoneID, rootRecordName: share.isZoneWide ? nil : share.rootRecordName, share: info)))
                } catch let error as ServerError {
                    results.append(.failure(error))
                }
            }
            return (results, Self.shareNotices(effects, writer: caller))
        })
        return try .encode(ShareLinksResponse(results: results))
    }

    private static func checkCount(_ request: ShortGUIDsRequest) throws {
        guard !request.shortGUIDs.isEmpty, request.shortGUIDs.count <= CloudLimits.maxOperationsPerRequest else {
            throw ServerError(.badRequest, "name 1 to \(CloudLimits.maxOperationsPerRequest) shortGUIDs")
        }
    }

    private static func unknownGUID(_ guid: String) -> ServerError {
        ServerError(.notFound, "no share of yours or naming you has the short GUID '\(guid.prefix(64))'")
    }

    /// The shares the user owns (or, `owned` false, is named in), by short GUID.
    private func sharesByGUID(
        _ tx: any StoreTransaction, container: String, user: String, owned: Bool
    ) async throws -> [String: (StoredZone, ShareRow)] {
        let shares = owned ? try await tx.ownedShares(container: container, owner: user) : try await tx.sharesListing(container: container, participant: user)
        var byGUID: [String: (StoredZone, ShareRow)] = [:]
        for (zone, share) in shares { byGUID[Self.shortGUID(zone, share)] = (zone, share) }
        return byGUID
    }
}
