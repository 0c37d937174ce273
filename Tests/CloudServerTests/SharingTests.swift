import CloudModel
import Foundation
import Testing

/// A `TodoList` record (a root: no parent).
private func list(_ name: String, _ title: String) -> Record {
    Record(recordName: name, recordType: "TodoList", fields: ["title": .string(title)])
}

/// A record hung under `parent`.
private func under(_ parent: String, _ record: Record) -> Record {
    var record = record
    record.parent = ParentReference(recordName: parent)
    return record
}

extension TestCloud {
    /// Alice's zone: `L1` Groceries (t1, t2), `L2` Secret plans (s1), and a todo without a list (u1).
    fileprivate func seed(_ owner: Device) async throws {
        try await createTodosZone(owner)
        let results = try await modify(
            owner,
            [
                RecordOperation(.create, list("L1", "Groceries")), RecordOperation(.create, under("L1", todo("t1", "Milk"))),
                RecordOperation(.create, under("L1", todo("t2", "Eggs"))), RecordOperation(.create, list("L2", "Secret plans")),
                RecordOperation(.create, under("L2", todo("s1", "Surprise party"))), RecordOperation(.create, todo("u1", "Unlisted")),
            ])
        #expect(results.allSatisfy { $0.record != nil })
    }

    fileprivate func shareOperations(_ device: Device, _ operations: [ModifySharesRequest.Operation]) async throws -> [ShareResult] {
        let answer: SharesResponse = try await post(
            .private, "shares/modify", ModifySharesRequest(operations: operations), token: device.token)
        return answer.shares
    }

    /// Saves the share of `root` with exactly these participants; the share must come back.
    fileprivate func share(
        _ owner: Device, _ root: String, with participants: [(String, ShareParticipantPermission)]
    ) async throws -> ShareInfo {
        let results = try await shareOperations(
            owner,
            [
                .init(
                    .save, zoneID: todos, rootRecordName: root,
                    participants: participants.map { .init(account: $0.0, permission: $0.1) })
            ])
        return try #require(results.first?.share, "\(results)")
    }

    fileprivate func shareAction(_ action: String, _ device: Device, _ owner: Device, _ shareName: String) async throws -> [ShareResult] {
        let zone = ZoneID(zoneName: "Todos", ownerRecordName: owner.user)
        let answer: SharesResponse = try await post(
            .shared, "shares/\(action)", ShareReferenceRequest(shares: [ShareReference(shareRecordName: shareName, zoneID: zone)]),
            token: device.token)
        return answer.shares
    }

    fileprivate func sharesList(_ device: Device, _ scope: DatabaseScope) async throws -> [ShareInfo] {
        let (status, data) = try await raw("GET", address.databasePath(scope, "shares/list"), token: device.token)
        #expect(status == 200)
        return try JSONDecoder().decode(SharesResponse.self, from: data).shares.compactMap(\.share)
    }

    fileprivate func zoneFeed(
        _ device: Device, _ scope: DatabaseScope, _ zone: ZoneID, token: ChangeToken? = nil, limit: Int? = nil
    ) async throws -> ZoneChanges {
        let answer: ZoneChangesResponse = try await post(
            scope, "changes/zone", ZoneChangesRequest(zones: [ZoneChangesQuery(zoneID: zone, syncToken: token, resultsLimit: limit)]),
            token: device.token)
        return try #require(answer.zones.first)
    }

    /// Every page of a zone's feed after `token`.
    fileprivate func fullFeed(
        _ device: Device, _ scope: DatabaseScope, _ zone: ZoneID, token: ChangeToken? = nil, limit: Int? = nil
    ) async throws -> (records: [Record], token: ChangeToken) {
        var token = token
        var records: [Record] = []
        for _ in 0..<100 {
            let page = try await zoneFeed(device, scope, zone, token: token, limit: limit)
            #expect(page.serverErrorCode == nil, "\(page.reason ?? "")")
            records += page.records
            token = page.syncToken
            if !page.moreComing { break }
        }
        return (records, try #require(token))
    }

    fileprivate func databaseFeed(_ device: Device, _ scope: DatabaseScope, token: ChangeToken? = nil) async throws -> DatabaseChangesResponse {
        try await post(scope, "changes/database", DatabaseChangesRequest(syncToken: token), token: device.token)
    }

    fileprivate func subscribeShared(_ device: Device) async throws {
        let subscription = Subscription(subscriptionID: TodoSchema.sharedSubscriptionID, subscriptionType: .database)
        let answer: SubscriptionsResponse = try await post(
            .shared, "subscriptions/modify", ModifySubscriptionsRequest(operations: [.init(.create, subscription)]), token: device.token)
        #expect(answer.subscriptions.first?.error == nil)
    }

    fileprivate func lookup(_ device: Device, _ scope: DatabaseScope, _ zone: ZoneID, _ names: [String]) async throws -> [RecordResult] {
        let answer: RecordsResponse = try await post(
            scope, "records/lookup", LookupRecordsRequest(recordNames: names, zoneID: zone), token: device.token)
        return answer.records
    }

    fileprivate func query(_ device: Device, _ scope: DatabaseScope, _ zone: ZoneID, _ type: String) async throws -> [Record] {
        let answer: QueryResponse = try await post(scope, "records/query", QueryRequest(query: Query(recordType: type), zoneID: zone), token: device.token)
        return answer.records
    }

    /// The current copy of a record as its owner sees it.
    fileprivate func current(_ owner: Device, _ name: String) async throws -> Record {
        try #require(try await lookup(owner, .private, todos, [name]).first?.record)
    }
}

private func names(_ records: [Record]) -> Set<String> { Set(records.map(\.recordName)) }

/// Serialized: each test runs a cloud and three accounts; nine at once on a 2-core machine starve the
/// latency-bound tmux test that runs beside this suite.
@Suite("Sharing: shares, the shared database, participants' rules", .serialized)
struct SharingTests {
    @Test func inviteAcceptAndSeeExactlyTheSharedList() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            let bob = try await cloud.signIn("bob", device: "desk")
            try await cloud.subscribeShared(bob)
            let bobCourier = try await cloud.registerPush(bob)
            try await cloud.listen(bobCourier)
            try await cloud.seed(alice)
            let aliceZone = ZoneID(zoneName: "Todos", ownerRecordName: alice.user)
            let before = try await cloud.databaseFeed(bob, .shared)
            #expect(before.zones.isEmpty)

            let saved = try await cloud.share(alice, "L1", with: [("bob", .readWrite)])
            #expect(saved.shareRecordName == ShareSchema.recordName(forRoot: "L1"))
            #expect(saved.rootTitle == "Groceries")
            #expect(saved.owner == ShareOwnerInfo(userRecordName: alice.user, account: "alice"))
            #expect(saved.participants == [ShareParticipantInfo(userRecordName: bob.user, account: "bob", permission: .readWrite, acceptanceStatus: .pending)])
            #expect(saved.currentUserParticipant == nil)

            // The invitation pushes a hint to Bob's shared subscription; it lists as pending.
            let invitation = try #require(try await cloud.poll(bobCourier, timeout: 5))
            #expect(invitation.ck.met?.sid == TodoSchema.sharedSubscriptionID)
            #expect(invitation.scope == .shared)
            let invitations = try await cloud.sharesList(bob, .shared)
            #expect(invitations.map(\.shareRecordName) == ["share-L1"])
            #expect(invitations.first?.currentUserParticipant?.acceptanceStatus == .pending)
            #expect(invitations.first?.rootTitle == "Groceries")
            #expect(invitations.first?.zoneID == aliceZone)

            // Pending is not access.
            let pendingZones: ZonesResponse = try await cloud.post(.shared, "zones/list", EmptyBody(), token: bob.token)
            #expect(pendingZones.zones.isEmpty)
            #expect(try await cloud.zoneFeed(bob, .shared, aliceZone).serverErrorCode == .zoneNotFound)

            let accepted = try await cloud.shareAction("accept", bob, alice, "share-L1")
            #expect(accepted.first?.share?.currentUserParticipant?.acceptanceStatus == .accepted)
            let again = try await cloud.shareAction("accept", bob, alice, "share-L1")
            #expect(again.first?.share?.participants.map(\.acceptanceStatus) == [.accepted])

            // The zone appears in Bob's shared database, owned by Alice.
            let feed = try await cloud.databaseFeed(bob, .shared, token: before.syncToken)
            #expect(feed.zones == [ZoneChange(zoneID: aliceZone)])
            let legacyFeed: ZonesChangesResponse = try await cloud.post(.shared, "zones/changes", DatabaseChangesRequest(), token: bob.token)
            #expect(legacyFeed.zones.map(\.zoneID) == [aliceZone])
            let zones: ZonesResponse = try await cloud.post(.shared, "zones/list", EmptyBody(), token: bob.token)
            #expect(zones.zones.compactMap(\.zone?.zoneID) == [aliceZone])
            let looked: ZonesResponse = try await cloud.post(.shared, "zones/lookup", LookupZonesRequest(zoneIDs: [aliceZone]), token: bob.token)
            #expect(looked.zones.first?.zone?.syncToken != nil)

            // Exactly the list, its todos and the share; in small pages too.
            let all = try await cloud.fullFeed(bob, .shared, aliceZone)
            #expect(names(all.records) == ["L1", "t1", "t2", "share-L1"])
            let paged = try await cloud.fullFeed(bob, .shared, aliceZone, limit: 1)
            #expect(names(paged.records) == ["L1", "t1", "t2", "share-L1"])
            let legacy: RecordChangesResponse = try await cloud.post(
                .shared, "records/changes", RecordChangesRequest(zoneID: aliceZone), token: bob.token)
            #expect(names(legacy.records) == ["L1", "t1", "t2", "share-L1"])
            let shareRecord = try #require(all.records.first { $0.recordName == "share-L1" })
            #expect(shareRecord.recordType == ShareSchema.recordType)
            #expect(shareRecord[ShareSchema.rootRecordField]?.referenceValue?.recordName == "L1")
            #expect(shareRecord[ShareSchema.participantAccountsField] == .list(.string, [.string("bob")]))
            #expect(shareRecord[ShareSchema.participantStatusesField] == .list(.string, [.string("ACCEPTED")]))
            #expect(shareRecord[ShareSchema.participantPermissionsField] == .list(.string, [.string("READ_WRITE")]))
            #expect(shareRecord[ShareSchema.ownerAccountField] == .string("alice"))
            #expect(all.records.allSatisfy { $0.zoneID == aliceZone })

            // Nothing new since: the token is current.
            #expect(try await cloud.zoneFeed(bob, .shared, aliceZone, token: all.token).records.isEmpty)
            // Alice sees Bob as accepted.
            let owned = try await cloud.sharesList(alice, .private)
            #expect(owned.first?.participants.first?.acceptanceStatus == .accepted)
            #expect(try await cloud.sharesList(alice, .shared).isEmpty)
        }
    }

    @Test func participantEditsReachTheOwnerAndPushesSkipTheWriter() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice", device: "laptop")
            let bobDesk = try await cloud.signIn("bob", device: "desk")
            let bobPhone = try await cloud.signIn("bob", device: "phone")
            try await cloud.seed(alice)
            try await cloud.subscribe(alice)
            try await cloud.subscribeShared(bobDesk)
            _ = try await cloud.share(alice, "L1", with: [("bob", .readWrite)])
            _ = try await cloud.shareAction("accept", bobDesk, alice, "share-L1")
            let aliceZone = ZoneID(zoneName: "Todos", ownerRecordName: alice.user)
            let ownerStart = try await cloud.fullFeed(alice, .private, todos)
            let ownerDatabase = try await cloud.databaseFeed(alice, .private)
            let bobStart = try await cloud.fullFeed(bobPhone, .shared, aliceZone)
            let aliceCourier = try await cloud.registerPush(alice)
            let deskCourier = try await cloud.registerPush(bobDesk)
            let phoneCourier = try await cloud.registerPush(bobPhone)
            for courier in [aliceCourier, deskCourier, phoneCourier] { try await cloud.listen(courier) }

            var completed = try #require(bobStart.records.first { $0.recordName == "t1" })
            completed.fields = ["isCompleted": .int64(1)]
            let eggs = try #require(bobStart.records.first { $0.recordName == "t2" })
            let written = try await cloud.modify(
                bobDesk,
                [
                    RecordOperation(.create, under("L1", todo("t3", "Bread"))), RecordOperation(.update, completed),
                    RecordOperation(.delete, eggs),
                ], scope: .shared, zone: aliceZone)
            #expect(written.allSatisfy { $0.error == nil }, "\(written)")
            #expect(written.first?.record?.modified?.userRecordName == bobDesk.user)
            #expect(written.first?.record?.zoneID == aliceZone)

            // In Alice's private feed, with Bob as the writer.
            let ownerDelta = try await cloud.fullFeed(alice, .private, todos, token: ownerStart.token)
            #expect(names(ownerDelta.records) == ["t1", "t2", "t3"])
            #expect(ownerDelta.records.first { $0.recordName == "t1" }?["isCompleted"] == .int64(1))
            #expect(ownerDelta.records.first { $0.recordName == "t1" }?.modified?.userRecordName == bobDesk.user)
            #expect(ownerDelta.records.first { $0.recordName == "t2" }?.isDeleted == true)
            let ownerZones = try await cloud.databaseFeed(alice, .private, token: ownerDatabase.syncToken)
            #expect(ownerZones.zones.map(\.zoneID.zoneName) == ["Todos"])

            // Alice's device and Bob's other device hear of it; the writing device does not.
            #expect(try await cloud.poll(aliceCourier, timeout: 5)?.ck.met?.sid == TodoSchema.privateSubscriptionID)
            let phonePush = try #require(try await cloud.poll(phoneCourier, timeout: 5))
            #expect(phonePush.ck.met?.sid == TodoSchema.sharedSubscriptionID)
            #expect(try await cloud.poll(deskCourier, timeout: 0.3) == nil)
            let bobDelta = try await cloud.fullFeed(bobPhone, .shared, aliceZone, token: bobStart.token)
            #expect(names(bobDelta.records) == ["t1", "t2", "t3"])

            // Alice's own edit reaches Bob's devices through the shared subscription and his database feed.
            let bobDatabase = try await cloud.databaseFeed(bobPhone, .shared)
            var renamed = try await cloud.current(alice, "t3")
            renamed.fields = ["title": .string("Rye bread")]
            #expect(try await cloud.modify(alice, [RecordOperation(.update, renamed)]).first?.record != nil)
            #expect(try await cloud.poll(deskCourier, timeout: 5)?.scope == .shared)
            let bobLater = try await cloud.fullFeed(bobPhone, .shared, aliceZone, token: bobDelta.token)
            #expect(bobLater.records.map(\.recordName) == ["t3"])
            #expect(try await cloud.databaseFeed(bobPhone, .shared, token: bobDatabase.syncToken).zones == [ZoneChange(zoneID: aliceZone)])

            // Conflicts work as in the owner's zone.
            var stale = completed
            stale.fields = ["title": .string("Oat milk")]
            let conflict = try await cloud.modify(bobDesk, [RecordOperation(.update, stale)], scope: .shared, zone: aliceZone)
            #expect(conflict.first?.error?.serverErrorCode == .conflict)
            #expect(conflict.first?.error?.serverRecord?["isCompleted"] == .int64(1))
        }
    }

    @Test func participantRulesReadOnlyRootShareAndHierarchy() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            let bob = try await cloud.signIn("bob")
            try await cloud.seed(alice)
            _ = try await cloud.share(alice, "L1", with: [("bob", .readWrite)])
            _ = try await cloud.shareAction("accept", bob, alice, "share-L1")
            let aliceZone = ZoneID(zoneName: "Todos", ownerRecordName: alice.user)
            let start = try await cloud.fullFeed(bob, .shared, aliceZone)
            func record(_ name: String) throws -> Record { try #require(start.records.first { $0.recordName == name }) }
            func code(_ operation: RecordOperation) async throws -> ServerErrorCode? {
                try await cloud.modify(bob, [operation], scope: .shared, zone: aliceZone).first?.error?.serverErrorCode
            }

            // The list and the share are the owner's.
            var renamedList = try record("L1")
            renamedList.fields = ["title": .string("Mine now")]
            #expect(try await code(RecordOperation(.update, renamedList)) == .accessDenied)
            #expect(try await code(RecordOperation(.forceDelete, try record("L1"))) == .accessDenied)
            var shareEdit = try record("share-L1")
            shareEdit.fields = [ShareSchema.participantAccountsField: .list(.string, [.string("bob"), .string("mallory")])]
            #expect(try await code(RecordOperation(.forceUpdate, shareEdit)) == .accessDenied)
            #expect(try await code(RecordOperation(.forceDelete, try record("share-L1"))) == .accessDenied)
            let forgedShare = Record(recordName: "share-x", recordType: ShareSchema.recordType, fields: [:], parent: ParentReference(recordName: "L1"))
            #expect(try await code(RecordOperation(.create, forgedShare)) == .badRequest)

            // Records stay inside the shared hierarchy.
            #expect(try await code(RecordOperation(.create, todo("loose", "No list"))) == .accessDenied)
            #expect(try await code(RecordOperation(.create, under("L2", todo("sneak", "Into the secret list")))) == .accessDenied)
            #expect(try await code(RecordOperation(.create, under("nowhere", todo("sneak2", "Under a guess")))) == .accessDenied)
            #expect(try await code(RecordOperation(.forceUpdate, under("L2", try record("t1")))) == .accessDenied)
            var replaced = try record("t2")
            replaced.parent = nil
            #expect(try await code(RecordOperation(.forceReplace, replaced)) == .accessDenied)
            // A sub-item inside the list is fine.
            #expect(try await code(RecordOperation(.create, under("t1", todo("t1-a", "Lactose free")))) == nil)

            // Records outside it do not exist for Bob, whatever the operation.
            #expect(try await code(RecordOperation(.forceUpdate, todo("s1", "pwned"))) == .notFound)
            #expect(try await code(RecordOperation(.forceDelete, todo("s1", ""))) == .notFound)
            #expect(try await code(RecordOperation(.create, todo("u1", "pwned"))) == .notFound)
            #expect(try await cloud.current(alice, "s1")["title"] == .string("Surprise party"))
            #expect(try await cloud.current(alice, "u1")["title"] == .string("Unlisted"))

            // Atomic batches: one refused operation, nothing written.
            let batch = try await cloud.modify(
                bob, [RecordOperation(.create, under("L1", todo("t9", "Butter"))), RecordOperation(.forceUpdate, todo("s1", "x"))],
                scope: .shared, zone: aliceZone)
            #expect(batch.map { $0.error?.serverErrorCode } == [.atomicError, .notFound])
            #expect(try await cloud.lookup(alice, .private, todos, ["t9"]).first?.error?.serverErrorCode == .notFound)

            // Alice lowers Bob to read-only: every write is refused, reads go on, the token stays good.
            _ = try await cloud.share(alice, "L1", with: [("bob", .readOnly)])
            var milk = try await cloud.current(alice, "t1")
            milk.fields = ["isCompleted": .int64(1)]
            #expect(try await code(RecordOperation(.update, milk)) == .accessDenied)
            #expect(try await code(RecordOperation(.create, under("L1", todo("t4", "Jam")))) == .accessDenied)
            #expect(try await code(RecordOperation(.forceDelete, milk)) == .accessDenied)
            let refused = try await cloud.modify(bob, [RecordOperation(.update, milk)], scope: .shared, zone: aliceZone)
            #expect(refused.first?.error?.reason.contains("read-only") == true)
            #expect(try await cloud.current(alice, "t1")["isCompleted"] == .int64(0))
            let afterLowering = try await cloud.zoneFeed(bob, .shared, aliceZone, token: start.token)
            #expect(afterLowering.serverErrorCode == nil)
            #expect(names(afterLowering.records) == ["share-L1", "t1-a"])
            #expect(try await cloud.sharesList(bob, .shared).first?.currentUserParticipant?.permission == .readOnly)

            // Up again: writes work.
            _ = try await cloud.share(alice, "L1", with: [("bob", .readWrite)])
            #expect(try await code(RecordOperation(.update, milk)) == nil)
        }
    }

    @Test func recordsLeavingTheSharedListBecomeTombstones() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            let bob = try await cloud.signIn("bob")
            try await cloud.seed(alice)
            // t2 has a sub-item; both travel with t2.
            #expect(try await cloud.modify(alice, [RecordOperation(.create, under("t2", todo("t2-a", "Free range")))]).first?.record != nil)
            _ = try await cloud.share(alice, "L1", with: [("bob", .readWrite)])
            _ = try await cloud.shareAction("accept", bob, alice, "share-L1")
            let aliceZone = ZoneID(zoneName: "Todos", ownerRecordName: alice.user)
            let start = try await cloud.fullFeed(bob, .shared, aliceZone)
            #expect(names(start.records) == ["L1", "t1", "t2", "t2-a", "share-L1"])

            // Alice moves t1 and t2 (with t2-a) to the unshared list.
            _ = try await cloud.modify(
                alice, [RecordOperation(.forceUpdate, under("L2", todo("t1", "Milk"))), RecordOperation(.forceUpdate, under("L2", todo("t2", "Eggs")))])
            let moved = try await cloud.fullFeed(bob, .shared, aliceZone, token: start.token)
            #expect(names(moved.records) == ["t1", "t2", "t2-a"])
            #expect(moved.records.allSatisfy { $0.isDeleted })
            #expect(moved.records.allSatisfy { $0.fields == nil })
            let gone = try await cloud.lookup(bob, .shared, aliceZone, ["t1", "t2-a"])
            #expect(gone.allSatisfy { $0.error?.serverErrorCode == .notFound })
            // Edits to them no longer reach Bob, not even as tombstones.
            _ = try await cloud.modify(alice, [RecordOperation(.forceUpdate, under("L2", todo("t1", "Oat milk")))])
            #expect(try await cloud.zoneFeed(bob, .shared, aliceZone, token: moved.token).records.isEmpty)

            // Back into the shared list: Bob gets t2 and its sub-item again.
            _ = try await cloud.modify(alice, [RecordOperation(.forceUpdate, under("L1", todo("t2", "Eggs")))])
            let back = try await cloud.fullFeed(bob, .shared, aliceZone, token: moved.token)
            #expect(names(back.records) == ["t2", "t2-a"])
            #expect(back.records.allSatisfy { !$0.isDeleted })

            // A delete in the list is a tombstone too.
            _ = try await cloud.modify(alice, [RecordOperation(.forceDelete, todo("t2-a", ""))])
            let deleted = try await cloud.fullFeed(bob, .shared, aliceZone, token: back.token)
            #expect(deleted.records.map(\.recordName) == ["t2-a"])
            #expect(deleted.records.first?.isDeleted == true)
        }
    }

    @Test func acceptingASecondShareInTheZoneExpiresOldTokens() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            let bob = try await cloud.signIn("bob")
            try await cloud.seed(alice)
            _ = try await cloud.share(alice, "L1", with: [("bob", .readWrite)])
            _ = try await cloud.share(alice, "L2", with: [("bob", .readOnly)])
            _ = try await cloud.shareAction("accept", bob, alice, "share-L1")
            let aliceZone = ZoneID(zoneName: "Todos", ownerRecordName: alice.user)
            let first = try await cloud.fullFeed(bob, .shared, aliceZone)
            #expect(names(first.records) == ["L1", "t1", "t2", "share-L1"])
            let database = try await cloud.databaseFeed(bob, .shared)

            _ = try await cloud.shareAction("accept", bob, alice, "share-L2")
            let expired = try await cloud.zoneFeed(bob, .shared, aliceZone, token: first.token)
            #expect(expired.serverErrorCode == .changeTokenExpired)
            let (status, error) = try await cloud.failure(
                .shared, "records/changes", RecordChangesRequest(zoneID: aliceZone, syncToken: first.token), token: bob.token)
            #expect(status == 400)
            #expect(error.serverErrorCode == .changeTokenExpired)
            #expect(try await cloud.databaseFeed(bob, .shared, token: database.syncToken).zones.map(\.zoneID) == [aliceZone])

            // From scratch: both lists, with their own permissions.
            let both = try await cloud.fullFeed(bob, .shared, aliceZone)
            #expect(names(both.records) == ["L1", "t1", "t2", "share-L1", "L2", "s1", "share-L2"])
            let writeL1 = try await cloud.modify(bob, [RecordOperation(.create, under("L1", todo("t5", "Tea")))], scope: .shared, zone: aliceZone)
            #expect(writeL1.first?.record != nil)
            let writeL2 = try await cloud.modify(bob, [RecordOperation(.create, under("L2", todo("s5", "Cake")))], scope: .shared, zone: aliceZone)
            #expect(writeL2.first?.error?.serverErrorCode == .accessDenied)
            // A move from a read-write list into a read-only one is refused too.
            let intoReadOnly = try await cloud.modify(bob, [RecordOperation(.forceUpdate, under("L2", todo("t5", "Tea")))], scope: .shared, zone: aliceZone)
            #expect(intoReadOnly.first?.error?.serverErrorCode == .accessDenied)

            // One of the two shares goes away: the view shrinks, tokens expire again, the zone stays.
            let current = try await cloud.fullFeed(bob, .shared, aliceZone)
            let revoked = try await cloud.shareOperations(alice, [.init(.delete, zoneID: todos, rootRecordName: "L2")])
            #expect(revoked.first?.share?.participants == [])
            #expect(try await cloud.zoneFeed(bob, .shared, aliceZone, token: current.token).serverErrorCode == .changeTokenExpired)
            #expect(names(try await cloud.fullFeed(bob, .shared, aliceZone).records) == ["L1", "t1", "t2", "t5", "share-L1"])
            let zones: ZonesResponse = try await cloud.post(.shared, "zones/list", EmptyBody(), token: bob.token)
            #expect(zones.zones.count == 1)
        }
    }

    @Test func revokeLeaveRootDeleteAndZoneDeleteEndAccess() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            let bob = try await cloud.signIn("bob")
            try await cloud.subscribeShared(bob)
            let bobCourier = try await cloud.registerPush(bob)
            try await cloud.listen(bobCourier)
            try await cloud.seed(alice)
            let aliceZone = ZoneID(zoneName: "Todos", ownerRecordName: alice.user)

            /// Shares L1 with Bob, has him accept, and answers his database token after that.
            func shareAndAccept() async throws -> ChangeToken {
                _ = try await cloud.share(alice, "L1", with: [("bob", .readWrite)])
                #expect(try await cloud.shareAction("accept", bob, alice, "share-L1").first?.share != nil)
                _ = try await cloud.fullFeed(bob, .shared, aliceZone)
                while try await cloud.poll(bobCourier, timeout: 0.2) != nil {}
                return try await cloud.databaseFeed(bob, .shared).syncToken
            }
            /// Bob's zone is gone by every route; his device got a push unless it made the change itself.
            func expectGone(after token: ChangeToken, pushed: Bool = true) async throws {
                let feed = try await cloud.databaseFeed(bob, .shared, token: token)
                #expect(feed.zones == [ZoneChange(zoneID: aliceZone, deleted: true)])
                let (status, error) = try await cloud.failure(
                    .shared, "records/lookup", LookupRecordsRequest(recordNames: ["t1"], zoneID: aliceZone), token: bob.token)
                #expect(status == 404)
                #expect(error.serverErrorCode == .zoneNotFound)
                #expect(try await cloud.zoneFeed(bob, .shared, aliceZone).serverErrorCode == .zoneNotFound)
                let zones: ZonesResponse = try await cloud.post(.shared, "zones/list", EmptyBody(), token: bob.token)
                #expect(zones.zones.isEmpty)
                let write = try await cloud.modify(bob, [RecordOperation(.create, under("L1", todo("late", "Too late")))], scope: .shared, zone: aliceZone)
                #expect(write.first?.error?.serverErrorCode == .zoneNotFound)
                if pushed {
                    #expect(try await cloud.poll(bobCourier, timeout: 5)?.scope == .shared)
                } else {
                    #expect(try await cloud.poll(bobCourier, timeout: 0.3) == nil)
                }
            }

            // Revoke.
            var token = try await shareAndAccept()
            let ownerStart = try await cloud.fullFeed(alice, .private, todos)
            let revoked = try await cloud.shareOperations(alice, [.init(.delete, zoneID: todos, rootRecordName: "L1")])
            #expect(revoked.first?.share?.shareRecordName == "share-L1")
            try await expectGone(after: token)
            #expect(try await cloud.sharesList(bob, .shared).isEmpty)
            #expect(try await cloud.sharesList(alice, .private).isEmpty)
            let ownerDelta = try await cloud.fullFeed(alice, .private, todos, token: ownerStart.token)
            #expect(ownerDelta.records.map(\.recordName) == ["share-L1"])
            #expect(ownerDelta.records.first?.isDeleted == true)

            // Leave.
            token = try await shareAndAccept()
            let left = try await cloud.shareAction("leave", bob, alice, "share-L1")
            #expect(left.first?.share?.participants == [])
            #expect(left.first?.share?.currentUserParticipant?.userRecordName == bob.user)
            try await expectGone(after: token, pushed: false)
            #expect(try await cloud.sharesList(alice, .private).first?.participants == [])
            #expect(try await cloud.shareAction("leave", bob, alice, "share-L1").first?.error?.serverErrorCode == .notFound)

            // The owner drops Bob from the participant list.
            token = try await shareAndAccept()
            #expect(try await cloud.share(alice, "L1", with: []).participants.isEmpty)
            try await expectGone(after: token)

            // The owner deletes the root: the share goes with it.
            token = try await shareAndAccept()
            let deleted = try await cloud.modify(alice, [RecordOperation(.forceDelete, list("L1", ""))])
            #expect(deleted.first?.error == nil)
            try await expectGone(after: token)
            #expect(try await cloud.sharesList(alice, .private).isEmpty)
            #expect(try await cloud.lookup(alice, .private, todos, ["share-L1"]).first?.error?.serverErrorCode == .notFound)

            // The owner deletes the zone.
            _ = try await cloud.modify(alice, [RecordOperation(.create, list("L1", "Groceries again"))])
            token = try await shareAndAccept()
            let dropped: ZonesResponse = try await cloud.post(.private, "zones/modify", ModifyZonesRequest(operations: [.init(.delete, todos)]), token: alice.token)
            #expect(dropped.zones.first?.zone?.deleted == true)
            try await expectGone(after: token)
            #expect(try await cloud.sharesList(bob, .shared).isEmpty)
        }
    }

    @Test func nothingUnsharedLeaksToParticipantsOrStrangers() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            let bob = try await cloud.signIn("bob")
            let carol = try await cloud.signIn("carol")
            try await cloud.seed(alice)
            try await cloud.createTodosZone(bob)
            _ = try await cloud.share(alice, "L1", with: [("bob", .readOnly)])
            _ = try await cloud.shareAction("accept", bob, alice, "share-L1")
            let aliceZone = ZoneID(zoneName: "Todos", ownerRecordName: alice.user)
            let start = try await cloud.fullFeed(bob, .shared, aliceZone)

            // Lookup by guessed names.
            let guessed = try await cloud.lookup(bob, .shared, aliceZone, ["s1", "u1", "L2", "t1", "nope"])
            #expect(guessed.map { $0.error?.serverErrorCode } == [.notFound, .notFound, .notFound, nil, .notFound])
            // Queries.
            #expect(names(try await cloud.query(bob, .shared, aliceZone, "Todo")) == ["t1", "t2"])
            #expect(names(try await cloud.query(bob, .shared, aliceZone, "TodoList")) == ["L1"])
            #expect(names(try await cloud.query(bob, .shared, aliceZone, ShareSchema.recordType)) == ["share-L1"])
            // Feeds, after changes outside the shared list (including a delete): no zone change, no record.
            let database = try await cloud.databaseFeed(bob, .shared)
            _ = try await cloud.modify(
                alice, [RecordOperation(.forceUpdate, under("L2", todo("s1", "Bigger party"))), RecordOperation(.forceDelete, todo("u1", ""))])
            #expect(try await cloud.zoneFeed(bob, .shared, aliceZone, token: start.token).records.isEmpty)
            #expect(try await cloud.databaseFeed(bob, .shared, token: database.syncToken).zones.isEmpty)
            let legacy: RecordChangesResponse = try await cloud.post(
                .shared, "records/changes", RecordChangesRequest(zoneID: aliceZone, syncToken: start.token), token: bob.token)
            #expect(legacy.records.isEmpty)
            // Bob's own private zone is still his alone; Alice's zone is not in his private database.
            let (status, _) = try await cloud.failure(
                .private, "records/lookup", LookupRecordsRequest(recordNames: ["t1"], zoneID: aliceZone), token: bob.token)
            #expect(status == 404)

            // Carol: nothing in her shared database, and Bob's share is not hers to accept.
            #expect(try await cloud.databaseFeed(carol, .shared).zones.isEmpty)
            let carolZones: ZonesResponse = try await cloud.post(.shared, "zones/list", EmptyBody(), token: carol.token)
            #expect(carolZones.zones.isEmpty)
            #expect(try await cloud.sharesList(carol, .shared).isEmpty)
            let stolen = try await cloud.shareAction("accept", carol, alice, "share-L1")
            #expect(stolen.first?.error?.serverErrorCode == .notFound)
            #expect(stolen.first?.error?.shareRecordName == "share-L1")
            #expect(try await cloud.zoneFeed(carol, .shared, aliceZone).serverErrorCode == .zoneNotFound)
            let (carolStatus, carolError) = try await cloud.failure(
                .shared, "records/query", QueryRequest(query: Query(recordType: "Todo"), zoneID: aliceZone), token: carol.token)
            #expect(carolStatus == 404)
            #expect(carolError.serverErrorCode == .zoneNotFound)
            let carolWrite = try await cloud.modify(carol, [RecordOperation(.create, under("L1", todo("c1", "x")))], scope: .shared, zone: aliceZone)
            #expect(carolWrite.first?.error?.serverErrorCode == .zoneNotFound)
            // Nor can anyone reach a shared zone as their own, or without naming the owner.
            let (ownStatus, _) = try await cloud.failure(
                .shared, "records/lookup", LookupRecordsRequest(recordNames: ["t1"], zoneID: ZoneID(zoneName: "Todos", ownerRecordName: alice.user)),
                token: alice.token)
            #expect(ownStatus == 404)
            let (ownerless, _) = try await cloud.failure(.shared, "records/lookup", LookupRecordsRequest(recordNames: ["t1"], zoneID: todos), token: bob.token)
            #expect(ownerless == 404)
            #expect(try await cloud.shareAction("accept", alice, alice, "share-L1").first?.error?.serverErrorCode == .notFound)
        }
    }

    @Test func zonesOfTwoOwnersWithOneNameStayApart() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            let carol = try await cloud.signIn("carol")
            let bob = try await cloud.signIn("bob")
            try await cloud.seed(alice)
            try await cloud.seed(carol)
            _ = try await cloud.modify(carol, [RecordOperation(.forceUpdate, under("L1", todo("t1", "Carol's milk")))])
            _ = try await cloud.share(alice, "L1", with: [("bob", .readWrite)])
            _ = try await cloud.share(carol, "L1", with: [("bob", .readOnly)])
            _ = try await cloud.shareAction("accept", bob, alice, "share-L1")
            _ = try await cloud.shareAction("accept", bob, carol, "share-L1")
            let aliceZone = ZoneID(zoneName: "Todos", ownerRecordName: alice.user)
            let carolZone = ZoneID(zoneName: "Todos", ownerRecordName: carol.user)

            let feed = try await cloud.databaseFeed(bob, .shared)
            #expect(Set(feed.zones.map(\.zoneID)) == [aliceZone, carolZone])
            let zones: ZonesResponse = try await cloud.post(.shared, "zones/list", EmptyBody(), token: bob.token)
            #expect(Set(zones.zones.compactMap(\.zone?.zoneID)) == [aliceZone, carolZone])
            #expect(try await cloud.lookup(bob, .shared, carolZone, ["t1"]).first?.record?["title"] == .string("Carol's milk"))
            #expect(try await cloud.lookup(bob, .shared, aliceZone, ["t1"]).first?.record?["title"] == .string("Milk"))
            #expect(try await cloud.sharesList(bob, .shared).count == 2)
            // Tokens are per zone: one owner's token does not read the other's zone.
            let aliceFeed = try await cloud.fullFeed(bob, .shared, aliceZone)
            #expect(try await cloud.zoneFeed(bob, .shared, carolZone, token: aliceFeed.token).serverErrorCode == .changeTokenExpired)
            // The permission is per share: read-write in Alice's zone, read-only in Carol's.
            let inCarols = try await cloud.modify(bob, [RecordOperation(.create, under("L1", todo("b1", "x")))], scope: .shared, zone: carolZone)
            #expect(inCarols.first?.error?.serverErrorCode == .accessDenied)
            let inAlices = try await cloud.modify(bob, [RecordOperation(.create, under("L1", todo("b1", "x")))], scope: .shared, zone: aliceZone)
            #expect(inAlices.first?.record != nil)

            // Carol revokes: only her zone goes.
            let before = try await cloud.databaseFeed(bob, .shared)
            _ = try await cloud.shareOperations(carol, [.init(.delete, zoneID: todos, rootRecordName: "L1")])
            let after = try await cloud.databaseFeed(bob, .shared, token: before.syncToken)
            #expect(after.zones == [ZoneChange(zoneID: carolZone, deleted: true)])
            let left: ZonesResponse = try await cloud.post(.shared, "zones/list", EmptyBody(), token: bob.token)
            #expect(left.zones.compactMap(\.zone?.zoneID) == [aliceZone])
        }
    }

    @Test func shareRequestsGetClearErrors() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            let bob = try await cloud.signIn("bob")
            try await cloud.seed(alice)
            func op(_ root: String, _ accounts: [String], zone: ZoneID = todos, type: ShareOperationType = .save) -> ModifySharesRequest.Operation {
                .init(type, zoneID: zone, rootRecordName: root, participants: accounts.map { .init(account: $0, permission: .readWrite) })
            }
            let results = try await cloud.shareOperations(
                alice,
                [
                    op("L1", ["nobody"]), op("L1", ["alice"]), op("L1", ["bob", "bob"]), op("L1", ["bob"], zone: .default),
                    op("t1", ["bob"]), op("missing", ["bob"]), op("L1", ["bob"], zone: ZoneID(zoneName: "Nope")),
                    op("L2", [], type: .delete), op("", ["bob"]), op("L1", ["bob"]),
                ])
            let codes = results.map { $0.error?.serverErrorCode }
            #expect(
                codes == [.notFound, .badRequest, .badRequest, .badRequest, .badRequest, .notFound, .zoneNotFound, .notFound, .badRequest, nil])
            #expect(results[0].error?.reason.contains("no account named 'nobody'") == true)
            #expect(results[0].error?.rootRecordName == "L1")
            #expect(results[4].error?.reason.contains("parent") == true)
            #expect(results[9].share?.participants.map(\.account) == ["bob"])
            // A share with nobody yet is allowed; its record is the cloud's to write.
            #expect(try await cloud.share(alice, "L2", with: []).participants.isEmpty)
            let forged = try await cloud.modify(alice, [RecordOperation(.create, Record(recordName: "share-x", recordType: ShareSchema.recordType, fields: [:]))])
            #expect(forged.first?.error?.serverErrorCode == .badRequest)
            var shareRecord = try await cloud.current(alice, "share-L1")
            shareRecord.fields = [ShareSchema.participantAccountsField: .list(.string, [])]
            #expect(try await cloud.modify(alice, [RecordOperation(.forceUpdate, shareRecord)]).first?.error?.serverErrorCode == .badRequest)
            #expect(try await cloud.modify(alice, [RecordOperation(.forceDelete, shareRecord)]).first?.error?.serverErrorCode == .badRequest)
            // A shared root cannot be hung under another record while shared.
            let hung = try await cloud.modify(alice, [RecordOperation(.forceUpdate, under("L2", list("L1", "Groceries")))])
            #expect(hung.first?.error?.serverErrorCode == .badRequest)
            // A record already named like the share.
            _ = try await cloud.modify(alice, [RecordOperation(.create, list("L3", "Work")), RecordOperation(.create, todo("share-L3", "Squatter"))])
            #expect(try await cloud.shareOperations(alice, [op("L3", ["bob"])]).first?.error?.serverErrorCode == .exists)

            // Malformed bodies and wrong databases: BAD_REQUEST, and the cloud keeps answering.
            let path = cloud.address.databasePath(.private, "shares/modify")
            for body in [
                "not json", "{}", #"{"operations":[]}"#, #"{"operations":"x"}"#, #"{"operations":[{"operationType":"explode"}]}"#,
                #"{"operations":[{"operationType":"save","zoneID":{"zoneName":"Todos"},"rootRecordName":"L1","participants":[{"account":"bob","permission":"ADMIN"}]}]}"#,
                #"{"operations":[{"operationType":"save","zoneID":{},"rootRecordName":"L1"}]}"#,
                #"{"operations":[{"operationType":"save","zoneID":{"zoneName":"Todos"},"rootRecordName":7}]}"#,
            ] {
                let (status, data) = try await cloud.raw("POST", path, body: Data(body.utf8), token: alice.token)
                #expect(status == 400, "\(body)")
                #expect(try JSONDecoder().decode(ServerError.self, from: data).serverErrorCode == .badRequest)
            }
            for (scope, endpoint) in [(DatabaseScope.shared, "shares/modify"), (.private, "shares/accept"), (.private, "shares/leave"), (.public, "shares/list")] {
                let body: Data = endpoint == "shares/modify" ? try JSONEncoder().encode(ModifySharesRequest(operations: [op("L1", [])])) : Data("{\"shares\":[]}".utf8)
                let (status, _) = try await cloud.raw("POST", cloud.address.databasePath(scope, endpoint), body: body, token: alice.token)
                #expect(status == 400, "\(scope) \(endpoint)")
            }
            let acceptPath = cloud.address.databasePath(.shared, "shares/accept")
            for body in ["[]", #"{"shares":[]}"#, #"{"shares":[{"shareRecordName":"share-L1"}]}"#, #"{"shares":[{"zoneID":{"zoneName":"Todos"}}]}"#] {
                let (status, _) = try await cloud.raw("POST", acceptPath, body: Data(body.utf8), token: bob.token)
                #expect(status == 400, "\(body)")
            }
            let ownerless: SharesResponse = try await cloud.post(
                .shared, "shares/accept", ShareReferenceRequest(shares: [ShareReference(shareRecordName: "share-L1", zoneID: todos)]), token: bob.token)
            #expect(ownerless.shares.first?.error?.serverErrorCode == .badRequest)
            let (anonymous, _) = try await cloud.raw("POST", path, body: try JSONEncoder().encode(ModifySharesRequest(operations: [op("L1", [])])))
            #expect(anonymous == 421)
            #expect(try await cloud.sharesList(alice, .private).count == 2)
        }
    }
}
