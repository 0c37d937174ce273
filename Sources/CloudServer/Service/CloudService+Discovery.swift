import CloudModel
import Foundation

/// `users/discover`: users by account name (or e-mail address, matched against account names, or record name), only
/// those who allowed it in this container with `users/discoverability {"discoverable": true}`.
extension CloudService {
    func discoverUsers(_ call: DatabaseCall) async throws -> ServiceResponse {
        if call.request.method == EndpointMethod.get.rawValue || call.request.body.isEmpty {
            return try await discoverAllUsers(call.database, call.caller)
        }
        let request = try decode(DiscoverUsersRequest.self, from: call.request)
        let database = call.database
        guard request.lookupInfos.count <= CloudLimits.maxOperationsPerRequest else {
            throw ServerError(.limitExceeded, "at most \(CloudLimits.maxOperationsPerRequest) lookupInfos")
        }
        let container = database.container
        let users = try await store.read { tx -> [DiscoveredUser] in
            var found: [DiscoveredUser] = []
            for info in request.lookupInfos {
                let row: UserRow?
                if let name = info.accountName ?? info.emailAddress {
                    row = name.utf8.count <= 255 ? try await tx.user(account: name) : nil
                } else if let recordName = info.userRecordName {
                    row = recordName.utf8.count <= 255 ? try await tx.user(recordName: recordName) : nil
                } else if info.phoneNumber != nil {
                    row = nil  // accounts have no phone number: no match, as for someone unknown
                } else {
                    throw ServerError(.badRequest, "each lookupInfo names an accountName, emailAddress, phoneNumber or userRecordName")
                }
                // Someone who did not allow discovery is not told apart from someone who does not exist.
                guard let row, try await tx.isDiscoverable(container: container, user: row.userRecordName) else { continue }
                found.append(DiscoveredUser(userRecordName: row.userRecordName, lookupInfo: info, accountName: row.account))
            }
            return found
        }
        return try .encode(DiscoverUsersResponse(users: users))
    }

    /// `GET users/discover` (discover all): the discoverable users the caller shares with, as owner or participant,
    /// by account name; a lookup info of `userRecordName` each.
    private func discoverAllUsers(_ database: DatabaseKey, _ caller: Caller) async throws -> ServiceResponse {
        let user = try caller.requireUser()
        let container = database.container
        let users = try await store.read { tx -> [DiscoveredUser] in
            var partners = Set<String>()
            for (zone, share) in try await tx.ownedShares(container: container, owner: user) {
                partners.formUnion(try await tx.participants(zonePK: zone.pk, shareRecordName: share.recordName).map(\.userRecordName))
            }
            for (zone, share) in try await tx.sharesListing(container: container, participant: user) {
                partners.insert(zone.database.owner)
                partners.formUnion(try await tx.participants(zonePK: zone.pk, shareRecordName: share.recordName).map(\.userRecordName))
            }
            partners.remove(user)
            var found: [DiscoveredUser] = []
            for partner in partners {
                guard let row = try await tx.user(recordName: partner), try await tx.isDiscoverable(container: container, user: partner) else { continue }
                found.append(DiscoveredUser(userRecordName: partner, lookupInfo: UserLookupInfo(userRecordName: partner), accountName: row.account))
            }
            return found.sorted { $0.accountName < $1.accountName }
        }
        return try .encode(DiscoverUsersResponse(users: users))
    }

    /// `users/discoverability` (ours): the caller allows, or withdraws, being found by `users/discover`.
    func setDiscoverability(_ request: DiscoverabilityRequest, _ database: DatabaseKey, _ caller: Caller) async throws -> ServiceResponse {
        let user = try caller.requireUser()
        let container = database.container
        try await store.write { try await $0.setDiscoverable(container: container, user: user, request.discoverable) }
        return try .encode(request)
    }
}
