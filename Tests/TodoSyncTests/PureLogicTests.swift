import CloudClient
import CloudModel
import Foundation
import Testing
import TodoStore
import TodoSync

@Suite("Retry policy (pure, fake randomness)") struct RetryPolicyTests {
    let policy = RetryPolicy(baseDelay: 0.5, maximumDelay: 60, maximumAttempts: 5, jitter: 0.2)

    @Test func retryAfterFromTheServerIsHonoured() {
        let error = CloudError(.requestRateLimited, "slow down", retryAfter: 7)
        #expect(policy.response(to: error, attempt: 0, random: 0.9) == .retry(after: 7))
        let busy = CloudError(.serviceUnavailable, "later", retryAfter: 3)
        #expect(policy.response(to: busy, attempt: 2, random: 0.1) == .retry(after: 3))
    }

    @Test func exponentialBackoffWithJitterWhenNoRetryAfter() {
        let error = CloudError(.serviceUnavailable, "later")
        #expect(policy.response(to: error, attempt: 0, random: 0.5) == .retry(after: 0.5))
        #expect(policy.response(to: error, attempt: 1, random: 0.5) == .retry(after: 1))
        #expect(policy.response(to: error, attempt: 3, random: 0.5) == .retry(after: 4))
        #expect(abs(policy.delay(attempt: 3, retryAfter: nil, random: 0) - 3.2) < 1e-9)
        #expect(abs(policy.delay(attempt: 3, retryAfter: nil, random: 1) - 4.8) < 1e-9)
        #expect(policy.delay(attempt: 20, retryAfter: nil, random: 1) == 60)
    }

    @Test func givesUpAfterTheLastAttempt() {
        let error = CloudError(.requestRateLimited, "slow down", retryAfter: 1)
        guard case .fatal = policy.response(to: error, attempt: 5, random: 0) else {
            Issue.record("expected giving up")
            return
        }
    }

    @Test func everyErrorHasAPolicy() {
        #expect(policy.response(to: CloudError(.networkUnavailable, ""), attempt: 0, random: 0) == .goOffline)
        #expect(policy.response(to: CloudError(.serverRecordChanged, ""), attempt: 0, random: 0) == .mergeAndResend)
        #expect(policy.response(to: CloudError(.changeTokenExpired, ""), attempt: 0, random: 0) == .refetchFromScratch)
        #expect(policy.response(to: CloudError(.zoneNotFound, ""), attempt: 0, random: 0) == .recreateZone)
        #expect(policy.response(to: CloudError(.userDeletedZone, ""), attempt: 0, random: 0) == .recreateZone)
        #expect(policy.response(to: CloudError(.unknownItem, ""), attempt: 0, random: 0) == .reupload)
        #expect(policy.response(to: CloudError(.notAuthenticated, ""), attempt: 0, random: 0) == .signedOut)
        for code in [CloudError.Code.badRequest, .permissionFailure, .quotaExceeded, .limitExceeded] {
            guard case .fatal = policy.response(to: CloudError(code, "x"), attempt: 0, random: 0) else {
                Issue.record("\(code) should be fatal")
                continue
            }
        }
    }

    @Test func serverCodesMapOntoCKErrorCodes() {
        let cases: [(ServerErrorCode, CloudError.Code)] = [
            (.conflict, .serverRecordChanged), (.exists, .serverRecordChanged), (.throttled, .requestRateLimited),
            (.tryAgainLater, .serviceUnavailable), (.zoneNotFound, .zoneNotFound), (.userDeletedZone, .userDeletedZone),
            (.changeTokenExpired, .changeTokenExpired), (.authenticationRequired, .notAuthenticated),
            (.authenticationFailed, .notAuthenticated), (.accessDenied, .permissionFailure), (.atomicError, .batchRequestFailed),
            (.quotaExceeded, .quotaExceeded), (.limitExceeded, .limitExceeded), (.badRequest, .badRequest),
            (.internalError, .internalError), (.notFound, .unknownItem),
        ]
        for (server, client) in cases {
            #expect(CloudError(ServerError(server, "r", retryAfter: 2)).code == client)
        }
        var conflict = ServerError(.conflict, "changed")
        conflict.serverRecord = Record(recordName: "x", recordChangeTag: "t9")
        #expect(CloudError(conflict).serverRecord?.recordChangeTag == "t9")
        #expect(CloudError(ServerError(.throttled, "r", retryAfter: 2)).retryAfter == 2)
    }
}

@Suite("Launch sequence (pure state machine)") struct SyncSequenceTests {
    func steps(_ sequence: SyncSequence) -> [SyncSequence.Step] {
        var copy = sequence
        var all: [SyncSequence.Step] = []
        while let step = copy.next() { all.append(step) }
        return all
    }

    let fresh = LaunchFlags(createdCustomZone: false, subscribedToPrivateChanges: false, subscribedToSharedChanges: false)
    let done = LaunchFlags(createdCustomZone: true, subscribedToPrivateChanges: true, subscribedToSharedChanges: true)

    @Test func firstLaunchDoesEverythingInOrder() {
        let sequence = SyncSequence(reasons: [.launch], flags: fresh, signedIn: true, publicPollDue: true)
        #expect(
            steps(sequence) == [
                .checkAccount, .createZone, .saveSubscriptions(private: true, shared: true), .fetchChanges(.private),
                .fetchChanges(.shared), .sendOutbox, .pollPublicBoard,
            ])
    }

    @Test func cachedFlagsSkipZoneAndSubscriptions() {
        let sequence = SyncSequence(reasons: [.manualRefresh], flags: done, signedIn: true, publicPollDue: false)
        #expect(steps(sequence) == [.checkAccount, .fetchChanges(.private), .fetchChanges(.shared), .sendOutbox, .pollPublicBoard])
    }

    @Test func aPushFetchesTheDatabaseItNamesWithoutAnAccountCheck() {
        #expect(steps(SyncSequence(reasons: [.push(.private)], flags: done, signedIn: true, publicPollDue: false)) == [.fetchChanges(.private), .sendOutbox])
        #expect(steps(SyncSequence(reasons: [.push(.shared)], flags: done, signedIn: true, publicPollDue: false)) == [.fetchChanges(.shared), .sendOutbox])
        #expect(
            steps(SyncSequence(reasons: [.push(nil)], flags: done, signedIn: true, publicPollDue: false))
                == [.fetchChanges(.private), .fetchChanges(.shared), .sendOutbox])
        // Coalesced pushes for both fetch both, once each, in order; a missing subscription is saved first.
        let both = SyncSequence(reasons: [.push(.shared), .push(.private), .localEdit], flags: fresh, signedIn: true, publicPollDue: false)
        #expect(steps(both) == [.createZone, .saveSubscriptions(private: true, shared: true), .fetchChanges(.private), .fetchChanges(.shared), .sendOutbox])
        // After an authentication error the next pass asks who the user is, whatever its reason.
        let recheck = SyncSequence(reasons: [.push(.private)], flags: done, signedIn: true, publicPollDue: false, accountCheckDue: true)
        #expect(steps(recheck) == [.checkAccount, .fetchChanges(.private), .sendOutbox])
        #expect(steps(SyncSequence(reasons: [.localEdit], flags: done, signedIn: true, publicPollDue: false, accountCheckDue: true)) == [.checkAccount, .sendOutbox])
    }

    @Test func onlyTheMissingSubscription() {
        let flags = LaunchFlags(createdCustomZone: true, subscribedToPrivateChanges: true, subscribedToSharedChanges: false)
        let sequence = SyncSequence(reasons: [.launch], flags: flags, signedIn: true, publicPollDue: false)
        #expect(steps(sequence).contains(.saveSubscriptions(private: false, shared: true)))
        #expect(!steps(sequence).contains(.createZone))
    }

    @Test func localEditOnlySends() {
        let sequence = SyncSequence(reasons: [.localEdit], flags: done, signedIn: true, publicPollDue: false)
        #expect(steps(sequence) == [.sendOutbox])
        // Only the subscriptions missing: a pass that sends still only sends (the next full pass saves them).
        let unsubscribed = LaunchFlags(createdCustomZone: true, subscribedToPrivateChanges: false, subscribedToSharedChanges: false)
        #expect(steps(SyncSequence(reasons: [.localEdit], flags: unsubscribed, signedIn: true, publicPollDue: false)) == [.sendOutbox])
    }

    @Test func aDeviceThatNeverMadeTheZoneMakesItBeforeItSends() {
        let sequence = SyncSequence(reasons: [.localEdit], flags: fresh, signedIn: true, publicPollDue: false)
        #expect(steps(sequence) == [.createZone, .saveSubscriptions(private: true, shared: true), .sendOutbox])
        #expect(steps(SyncSequence(reasons: [.localEdit], flags: fresh, signedIn: false, publicPollDue: false)) == [])
    }

    @Test func signedOutOnlyReadsThePublicBoard() {
        let sequence = SyncSequence(reasons: [.launch], flags: done, signedIn: false, publicPollDue: true)
        #expect(steps(sequence) == [.checkAccount, .pollPublicBoard])
        var signedIn = SyncSequence(reasons: [.manualRefresh], flags: done, signedIn: true, publicPollDue: false)
        _ = signedIn.next()
        signedIn.accountUnavailable()
        #expect(steps(signedIn) == [.pollPublicBoard])
    }

    @Test func missingZoneRecreatesZoneAndSubscriptionsThenSends() {
        var sequence = SyncSequence(reasons: [.localEdit], flags: done, signedIn: true, publicPollDue: false)
        #expect(sequence.next() == .sendOutbox)
        sequence.zoneMissing()
        #expect(steps(sequence) == [.createZone, .saveSubscriptions(private: true, shared: true), .sendOutbox])
    }

    @Test func publicPollTimerPollsOnly() {
        let sequence = SyncSequence(reasons: [.publicPollTimer], flags: done, signedIn: true, publicPollDue: true)
        #expect(steps(sequence) == [.sendOutbox, .pollPublicBoard])
    }
}

@Suite("Outbox batching (pure)") struct OutboxBatcherTests {
    func change(_ name: String, zone: ZoneKey = .privateTodos, revision: Int64 = 1, delete: Bool = false) -> PendingChange {
        let key = RecordKey(scope: zone.scope, zoneName: zone.zoneName, zoneOwner: zone.zoneOwner, recordName: name)
        var item = TodoItem(key: key, title: name)
        item.system.changeTag = name.hasPrefix("new") ? nil : "tag-\(name)"
        return PendingChange(
            key: key, action: delete ? .delete(recordType: "Todo", changeTag: "tag-\(name)") : .save(item), baseFields: nil,
            revision: revision)
    }

    @Test func atMost200PerRequestAndOneZoneEach() {
        let changes = (0..<450).map { change("r\($0)") } + (0..<10).map { change("p\($0)", zone: .publicBoard) }
        let batches = OutboxBatcher.batches(changes)
        #expect(batches.map(\.changes.count) == [200, 200, 50, 10])
        #expect(batches.map(\.zone) == [.privateTodos, .privateTodos, .privateTodos, .publicBoard])
        #expect(batches.allSatisfy { $0.request.operations.count <= 200 })
    }

    @Test func rowsOfTheOutboxAreCutAsTheyAreWithTheSameBatchesAsTheGeneralPath() {
        let oneZone = (0..<450).map { change("r\($0)") }
        let mixed = oneZone + (0..<10).map { change("p\($0)", zone: .publicBoard) }
        for changes in [oneZone, mixed, []] {
            let distinct = OutboxBatcher.batches(changes, distinctRecords: true)
            #expect(distinct == OutboxBatcher.batches(changes))
            #expect(distinct.flatMap(\.changes) == changes)
        }
        #expect(OutboxBatcher.batches(oneZone, limit: 7, distinctRecords: true).map(\.changes.count).prefix(2) == [7, 7])
    }

    @Test func repeatedEntriesOfOneRecordCoalesce() {
        let batches = OutboxBatcher.batches([change("a", revision: 1), change("b"), change("a", revision: 3)])
        #expect(batches.count == 1)
        #expect(batches[0].changes.map(\.key.recordName) == ["a", "b"])
        #expect(batches[0].changes[0].revision == 3)
    }

    @Test func operationsCarryTheChangeTag() {
        let request = OutboxBatcher.batches([change("new1"), change("old"), change("gone", delete: true)])[0].request
        #expect(request.operations.map(\.operationType) == [.create, .replace, .delete])
        #expect(request.operations.map(\.record.recordChangeTag) == [nil, "tag-old", "tag-gone"])
        #expect(request.zoneID == ZoneID(zoneName: "Todos"))
        #expect(request.atomic == false)
        #expect(request.desiredKeys == [])  // acknowledgements need the system fields only
    }

    @Test func theBodyWrittenFromTheRowsIsTheRequest() throws {
        let shared = ZoneKey(scope: .shared, zoneName: "Todos", zoneOwner: "_owner")
        var dated = TodoItem(
            key: .privateTodo("dated"), title: "Milk \"2%\" / 牛奶 🥛\n", notes: "n", isCompleted: true,
            dueDate: Date(timeIntervalSince1970: 1_790_000_000.123), priority: 3, isTrashed: true)
        dated.setList("L1")
        dated.system.changeTag = "t9"
        var kept = TodoItem(key: .privateTodo("kept"), title: "with unknown fields")
        kept.extraFields = ["zeta": .int64(1), "alpha": .string("a"), "list": .string("not a reference"), "tags": .list(.string, [.string("x")])]
        var list = TodoItem(key: .privateTodo("L1"), recordType: "TodoList", title: "Groceries")
        list.system.changeTag = "t1"
        let cases: [[PendingChange]] = [
            [change("new1"), change("old"), change("gone", delete: true), change("new-gone", delete: true)],
            [dated, kept, list].map { PendingChange(key: $0.key, action: .save($0), baseFields: nil, revision: 1) },
            [change("p1", zone: shared), change("p2", zone: shared, delete: true)],
            [PendingChange(key: .privateTodo("forced"), action: .delete(recordType: "Todo", changeTag: nil), baseFields: nil, revision: 1)],
        ]
        for changes in cases {
            for batch in OutboxBatcher.batches(changes) {
                #expect(try ModifyRecordsRequest(bytes: batch.requestBody) == batch.request)
            }
        }
    }

    /// Every known field, written in name order without the dictionary: byte for byte what the client writes.
    @Test func everyKnownFieldIsWrittenAsTheClientWritesIt() throws {
        var full = TodoItem(key: .privateTodo("full"), title: "Plan \"trip\" ✈️", notes: "pack")
        full.apply(fields: [
            "title": .string("Plan \"trip\" ✈️"), "notes": .string("pack"), "isCompleted": .int64(0), "priority": .int64(2),
            "isTrashed": .int64(0), "dueDate": .timestamp(1_790_000_000_000), "allDay": .int64(0),
            "tags": .list(.string, [.string("home"), .string("trip")]), "repeat": .string("FREQ=WEEKLY"), "repeatFrom": .string("completion"),
            "series": .string("first"), "occurrence": .int64(3),
            "annotations": .list(.string, [.string("2026-11-01T10:00:00Z called them")]), "wait": .timestamp(1_789_000_000_000),
            "scheduled": .timestamp(1_789_500_000_000), "until": .timestamp(1_799_000_000_000), "start": .timestamp(1_789_900_000_000),
            "depends": .list(.string, [.string("other")]), "editStamps": .string("title=1,0"), "lostEdits": .string("[]"),
        ])
        full.setList("L1")
        #expect(full.extraFields.isEmpty && full.tags.count == 2 && full.annotations.count == 1 && full.repeatFromCompletion)
        var plain = TodoItem(key: .privateTodo("plain"), title: "Milk")
        plain.tags = ["errand"]
        plain.system.changeTag = "t2"
        let changes = [full, plain].map { PendingChange(key: $0.key, action: .save($0), baseFields: nil, revision: 1) }
        for batch in OutboxBatcher.batches(changes) {
            #expect(batch.requestBody == Data(batch.request.jsonBody))
            #expect(try ModifyRecordsRequest(bytes: batch.requestBody) == batch.request)
        }
    }
}

@Suite("canUpdate / canDelete / trash per the permission table of docs/ARCHITECTURE.md") struct PermissionTests {
    let me = PermissionContext(isSignedIn: true, userRecordName: "_me")
    let signedOut = PermissionContext(isSignedIn: false, userRecordName: nil)

    func item(_ scope: DatabaseScope, creator: String? = nil, permission: SharePermission? = nil) -> TodoItem {
        let key: RecordKey =
            switch scope {
            case .private: .privateTodo("r")
            case .public: .publicRecord("r")
            case .shared: RecordKey(scope: .shared, zoneName: "Todos", zoneOwner: "_owner", recordName: "r")
            }
        var item = TodoItem(key: key, title: "t")
        if let creator {
            item.system = SystemFields(changeTag: "t1", created: RecordStamp(timestamp: 1, userRecordName: creator))
        }
        item.sharePermission = permission
        return item
    }

    func check(_ item: TodoItem, _ context: PermissionContext, update: Bool, delete: Bool, trash: TrashAction?) {
        #expect(RecordPermissions.canUpdate(item, context) == update)
        #expect(RecordPermissions.canDelete(item, context) == delete)
        let action = RecordPermissions.trashAction(item, context)
        if let trash {
            #expect(action == trash)
        } else if case .refuse(let reason) = action {
            #expect(!reason.isEmpty)
        } else {
            Issue.record("expected a refusal, got \(action)")
        }
    }

    @Test func ownPrivateZone() {
        check(item(.private, creator: "_me"), me, update: true, delete: true, trash: .delete)
        check(item(.private), me, update: true, delete: true, trash: .delete)  // not yet uploaded
    }

    @Test func sharedReadWrite() {
        check(item(.shared, creator: "_owner", permission: .readWrite), me, update: true, delete: true, trash: .delete)
    }

    @Test func sharedReadOnly() {
        check(item(.shared, creator: "_owner", permission: .readOnly), me, update: false, delete: false, trash: nil)
    }

    @Test func publicCreatedByMe() {
        check(item(.public, creator: "_me"), me, update: true, delete: false, trash: .markTrashed)
        check(item(.public), me, update: true, delete: false, trash: .markTrashed)  // created here, not yet uploaded
    }

    @Test func publicSomeoneElses() {
        check(item(.public, creator: "_other"), me, update: false, delete: false, trash: nil)
    }

    @Test func signedOutEverythingIsReadOnly() {
        check(item(.public, creator: "_me"), signedOut, update: false, delete: false, trash: nil)
        check(item(.public), signedOut, update: false, delete: false, trash: nil)
        check(item(.private, creator: "_me"), signedOut, update: false, delete: false, trash: nil)
    }
}

@Suite("The system clock") struct SystemClockTests {
    @Test func absurdSleepsNeitherTrapNorWaitWhenCancelled() async throws {
        // Infinity and 1e300 seconds would overflow a nanosecond count; cancelled at once, each returns without trapping.
        for seconds in [Double.infinity, 1e300, 2e10] {
            let sleeper = Task { try await SystemClock().sleep(seconds: seconds) }
            sleeper.cancel()
            await #expect(throws: CancellationError.self) { try await sleeper.value }
        }
        // NaN and negative times do not wait at all.
        try await SystemClock().sleep(seconds: .nan)
        try await SystemClock().sleep(seconds: -1)
    }
}

@Suite("The one-line sync status") struct StatusLineTests {
    @Test func everyPartInItsPlace() {
        var snapshot = SyncSnapshot(deviceName: "laptop")
        snapshot.connection = .online
        #expect(snapshot.statusLine == "online")
        snapshot.pendingCount = 3
        #expect(snapshot.statusLine == "online · 3 pending")
        snapshot.failedCount = 1
        #expect(snapshot.statusLine == "online · 3 pending · 1 refused")
        snapshot.pendingCount = 0
        #expect(snapshot.statusLine == "online · 1 refused")
        snapshot.isSyncing = true
        snapshot.progress = FetchProgress(fetched: 1200, total: 5000)
        #expect(snapshot.statusLine == "syncing 1200/5000 · 1 refused")
        snapshot.progress = FetchProgress(fetched: 7)
        snapshot.failedCount = 0
        #expect(snapshot.statusLine == "syncing 7")
        snapshot.progress = nil
        #expect(snapshot.statusLine == "syncing")
        snapshot.connection = .offline
        snapshot.pendingCount = 25
        #expect(snapshot.statusLine == "offline · 25 pending")
        snapshot.connection = .signedOut
        #expect(snapshot.statusLine == "signed out · 25 pending")
    }
}
