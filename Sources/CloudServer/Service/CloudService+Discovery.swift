import CloudModel
import Foundation

/// `users/discover`: users by account name (or e-mail address, matched against account names, or record name), only
/// those who allowed it in this container with `users/discoverability {"discoverable": true}`.
extension CloudService {
    func discoverUsers(_ request: DiscoverUsersRequest, _ database: DatabaseKey) async throws -> ServiceResponse {
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
                } else {
                    throw ServerError(.badRequest, "each lookupInfo names an accountName, emailAddress or userRecordName")
                }
                // Someone who did not allow discovery is not told apart from someone who does not exist.
                guard let row, try await tx.isDiscoverable(container: container, user: row.userRecordName) else { continue }
                found.append(DiscoveredUser(userRecordName: row.userRecordName, lookupInfo: info, accountName: row.account))
            }
            return found
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
