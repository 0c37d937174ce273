import CloudClient
import CloudModel
import Foundation
import Testing

/// The typed share calls of `CloudClient` against the real cloud (the server's rules are tested in CloudServerTests).
@Suite("CloudClient share calls")
struct ShareClientTests {
    private func signedIn(_ cloud: TestCloud, _ account: String) async throws -> (client: CloudClient, user: String) {
        let client = CloudClient(baseURL: cloud.baseURL)
        _ = try await client.createAccount(account: account, password: "password-\(account)")
        let session = try await client.signIn(account: account, password: "password-\(account)", deviceName: "desk")
        return (client, session.userRecordName)
    }

    @Test func shareAcceptListAndLeaveThroughTheClient() async throws {
        let cloud = try await TestCloud.start()
        do {
            let (alice, aliceUser) = try await signedIn(cloud, "alice")
            let (bob, bobUser) = try await signedIn(cloud, "bob")
            let zone = ZoneID(zoneName: TodoSchema.zoneName)
            _ = try await alice.modifyZones(.private, ModifyZonesRequest(operations: [.init(.create, zone)]))
            var groceries = Record(recordName: "L1", recordType: TodoSchema.listType, fields: ["title": .string("Groceries")])
            groceries.zoneID = zone
            let milk = Record(
                recordName: "t1", recordType: TodoSchema.todoType, fields: ["title": .string("Milk")], parent: ParentReference(recordName: "L1"))
            let saved = try await alice.modifyRecords(
                .private, ModifyRecordsRequest(operations: [.init(.create, groceries), .init(.create, milk)], zoneID: zone))
            #expect(saved.allSatisfy { $0.error == nil })

            let results = try await alice.modifyShares(
                ModifySharesRequest(operations: [
                    .init(.save, zoneID: zone, rootRecordName: "L1", participants: [.init(account: "bob", permission: .readWrite)]),
                    .init(.save, zoneID: zone, rootRecordName: "L1", participants: [.init(account: "nobody", permission: .readOnly)]),
                ]))
            let share = try #require(results.first?.share)
            #expect(share.shareRecordName == ShareSchema.recordName(forRoot: "L1"))
            // Per-item errors come back as results the caller maps like records' errors.
            let failure = try #require(results.last?.error)
            #expect(CloudError(failure).code == .unknownItem)
            #expect(failure.rootRecordName == "L1")

            #expect(try await alice.listOwnedShares().map(\.rootRecordName) == ["L1"])
            let invitations = try await bob.listSharedWithMe()
            #expect(invitations.map(\.owner.account) == ["alice"])
            #expect(invitations.first?.currentUserParticipant?.acceptanceStatus == .pending)
            let reference = ShareReference(shareRecordName: share.shareRecordName, zoneID: ZoneID(zoneName: zone.zoneName, ownerRecordName: aliceUser))
            let accepted = try await bob.acceptShares([reference])
            #expect(accepted.first?.share?.currentUserParticipant?.userRecordName == bobUser)

            let sharedZone = ZoneID(zoneName: zone.zoneName, ownerRecordName: aliceUser)
            let changes = try await bob.zoneChanges(.shared, ZoneChangesRequest(zones: [ZoneChangesQuery(zoneID: sharedZone)]))
            #expect(Set(changes.zones.first?.records.map(\.recordName) ?? []) == ["L1", "t1", "share-L1"])

            let left = try await bob.leaveShares([reference])
            #expect(left.first?.share?.participants.isEmpty == true)
            let again = try await bob.leaveShares([reference])
            #expect(again.first?.error?.serverErrorCode == .notFound)
            #expect(try await bob.listSharedWithMe().isEmpty)
            do {
                _ = try await bob.lookupRecords(.shared, LookupRecordsRequest(recordNames: ["t1"], zoneID: sharedZone))
                Issue.record("a zone Bob left still answered")
            } catch let error as CloudError {
                #expect(error.code == .zoneNotFound)
            }
        } catch {
            await cloud.shutdown()
            throw error
        }
        await cloud.shutdown()
    }
}
