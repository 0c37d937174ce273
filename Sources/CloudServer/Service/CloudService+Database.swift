import CloudModel
import Foundation

extension CloudService {
    /// The database endpoints a GET may ask (they change nothing); made once, not per request.
    static let readOnlyGET: Set<String> = ["zones/list", "subscriptions/list", "users/caller", "users/current", "zones/changes", "shares/list"]

    /// `/database/1/{container}/{env}/{scope}/{entity}/{action}`.
    func database(
        _ request: ServiceRequest, container: String, scope: DatabaseScope, endpoint: String, caller: Caller
    ) async throws -> ServiceResponse {
        guard request.method == "POST" || (request.method == "GET" && Self.readOnlyGET.contains(endpoint)) else {
            throw ServerError(.badRequest, "\(endpoint) wants POST with a JSON body")
        }
        if scope != .public { _ = try caller.requireUser() }
        var caller = caller
        caller.origin = request.origin
        let database = DatabaseKey(
            container: container, scope: scope, owner: scope == .public ? DatabaseKey.publicOwner : (caller.userRecordName ?? ""))
        switch endpoint {
        case "records/modify":
            return try await modifyRecords(body: request.body, database, caller)
        case "records/lookup":
            return try await lookupRecords(try decode(LookupRecordsRequest.self, from: request), database, caller)
        case "records/query":
            return try await queryRecords(try decode(QueryRequest.self, from: request), database, caller)
        case "records/changes":
            return try await recordChanges(try decode(RecordChangesRequest.self, from: request), database, caller)
        case "changes/zone":
            return try await zoneChanges(try decode(ZoneChangesRequest.self, from: request), database, caller)
        case "changes/database":
            return try await databaseChanges(try decode(DatabaseChangesRequest.self, from: request), database, legacy: false)
        case "zones/changes":
            return try await databaseChanges(try decode(DatabaseChangesRequest.self, from: request), database, legacy: true)
        case "zones/list":
            return try await listZones(database)
        case "zones/lookup":
            return try await lookupZones(try decode(LookupZonesRequest.self, from: request), database)
        case "zones/modify":
            return try await modifyZones(try decode(ModifyZonesRequest.self, from: request), database, caller)
        case "subscriptions/modify":
            return try await modifySubscriptions(try decode(ModifySubscriptionsRequest.self, from: request), database, caller)
        case "subscriptions/list":
            return try await listSubscriptions(database, caller)
        case "shares/modify":
            return try await modifyShares(try decode(ModifySharesRequest.self, from: request), database, caller)
        case "shares/list":
            return try await listShares(database, caller)
        case "shares/accept", "shares/leave":
            return try await acceptOrLeaveShares(
                try decode(ShareReferenceRequest.self, from: request), database, caller, leave: endpoint == "shares/leave")
        case "assets/upload":
            return try await assetUpload(try decode(AssetUploadRequest.self, from: request), database, caller)
        case "users/discover":
            return try await discoverUsers(try decode(DiscoverUsersRequest.self, from: request), database)
        case "users/discoverability":
            return try await setDiscoverability(try decode(DiscoverabilityRequest.self, from: request), database, caller)
        case "users/caller", "users/current":
            let user = try caller.requireUser()
            let row = try await store.read { try await $0.user(recordName: user) }
            return try .encode(UserIdentity(userRecordName: user, account: row?.account))
        default:
            throw RequestError.notFound(request.method, request.segments)
        }
    }

    /// `records/modify` from its body. Fields stay canonical JSON from the request to the row: validated, never
    /// decoded and encoded again.
    ///
    /// A large request of a signed-in caller that is the only write under way is read ahead of its write, on the
    /// core its write leaves idle (anything malformed in it is then reported as the whole body, read at once, says).
    /// Beside other writes it is read whole first, as they are: they keep both cores busy already.
    private func modifyRecords(body: Data, _ database: DatabaseKey, _ caller: Caller) async throws -> ServiceResponse {
        let others = modifies.enter()
        defer { modifies.leave() }
        if others == 0, caller.userRecordName != nil, let split = try? ModifyRecordsBody(bytes: Array(body)),
            (OperationFeed.readAheadThreshold...CloudLimits.maxOperationsPerRequest).contains(split.count)
        {
            do {
                return try await modifyRecords(OperationFeed(body: split), database, caller)
            } catch is OperationFeed.ReadFailure {
                // Nothing was written; reading the body whole says what is wrong with it.
            }
        }
        let read = try ModifyRecordsRequest.readForStorage(bytes: body)
        return try await modifyRecords(OperationFeed(request: read.request, fields: read.fields), database, caller)
    }

    /// Finds the zone a request names, answering as CloudKit would for zones that are not there.
    /// `create` makes the always-present default zone on first write.
    func resolveZone(_ tx: any StoreTransaction, _ database: DatabaseKey, _ zoneID: ZoneID?, create: Bool) async throws -> StoredZone? {
        let zoneID = zoneID ?? .default
        switch database.scope {
        case .public:
            guard zoneID.isDefault else {
                throw ServerError(.zoneNotFound, "the public database has only the default zone")
            }
        case .shared:
            // Another user's zone, seen through the shares the caller accepted in it.
            return try await resolveSharedZone(tx, database, zoneID)
        case .private:
            if Self.namesAnotherOwner(zoneID, database) {
                throw ServerError(.zoneNotFound, "zone '\(zoneID.zoneName)' not found")
            }
        }
        if let zone = try await tx.zone(database, name: zoneID.zoneName) { return zone }
        if zoneID.isDefault { return create ? try await tx.createZone(database, name: zoneID.zoneName) : nil }
        if try await tx.isPurged(database, name: zoneID.zoneName) {
            throw ServerError(.userDeletedZone, "the user deleted zone '\(zoneID.zoneName)' and its data; create it again to use it")
        }
        throw ServerError(.zoneNotFound, "zone '\(zoneID.zoneName)' not found")
    }

    /// Whether a zone ID of a private-database request names an owner other than the database's (`__defaultOwner__`,
    /// CloudKit's word for the caller, and no owner at all both mean the caller).
    static func namesAnotherOwner(_ zoneID: ZoneID, _ database: DatabaseKey) -> Bool {
        guard let owner = zoneID.ownerRecordName else { return false }
        return owner != database.owner && owner != "__defaultOwner__"
    }
}
