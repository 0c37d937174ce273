import CloudModel
import Foundation

extension CloudService {
    /// What every call of a database endpoint checks before its handler runs (`endpoint` as the path names it,
    /// `methods` those it answers): the method, a session outside the public database; and the database it is in.
    func databaseCall(_ context: CloudRequestContext, scope: DatabaseScope, endpoint: String, methods: Set<EndpointMethod>) throws -> DatabaseCall {
        let request = context.request
        guard let method = EndpointMethod(rawValue: request.method), method != .head, methods.contains(method) else {
            throw ServerError(.badRequest, "\(endpoint) wants POST with a JSON body")
        }
        if scope != .public { _ = try context.caller.requireUser() }
        var caller = context.caller
        caller.origin = request.origin
        let database = DatabaseKey(
            container: context.container, scope: scope,
            owner: scope == .public ? DatabaseKey.publicOwner : (caller.userRecordName ?? ""))
        return DatabaseCall(request: request, database: database, caller: caller)
    }

    /// `users/caller` and `users/current`: who the caller is.
    func callerIdentity(_ caller: Caller) async throws -> ServiceResponse {
        let user = try caller.requireUser()
        let row = try await store.read { try await $0.user(recordName: user) }
        return try .encode(UserIdentity(userRecordName: user, account: row?.account))
    }

    /// `records/modify` from its body. Fields stay canonical JSON from the request to the row: validated, never
    /// decoded and encoded again.
    ///
    /// A large request of a signed-in caller that is the only write under way is read ahead of its write, on the
    /// core its write leaves idle (anything malformed in it is then reported as the whole body, read at once, says).
    /// Beside other writes it is read whole first, as they are: they keep both cores busy already.
    func modifyRecords(body: Data, _ database: DatabaseKey, _ caller: Caller) async throws -> ServiceResponse {
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
