import CloudClient
import CloudModel
import Foundation
import TodoStore

extension SyncEngine {
    /// One pass of the launch sequence for the reasons queued.
    func runPass(_ reasons: Set<SyncReason>) async {
        let onlyBackground = reasons.isSubset(of: [.localEdit, .publicPollTimer, .push(nil), .push(.private), .push(.shared)])
        if connection == .offline && onlyBackground { return }  // the probe brings us back
        let state: SyncState
        do {
            state = try await store.syncState()
        } catch {
            lastError = "\(error)"
            publish()
            return
        }
        let flags = LaunchFlags(
            createdCustomZone: state.createdCustomZone, subscribedToPrivateChanges: state.subscribedToPrivateChanges,
            subscribedToSharedChanges: state.subscribedToSharedChanges)
        let now = clock.now()
        let pollDue = lastPublicPollAt.map { now.timeIntervalSince($0) >= currentPublicPollInterval } ?? true
        var sequence = SyncSequence(
            reasons: reasons, flags: flags, signedIn: client.authToken != nil && connection != .signedOut, publicPollDue: pollDue)
        isSyncing = true
        progress = nil
        var failed = false
        publish()
        startOutboxPrefetch(sequence)
        var zoneRecoveries = 0
        var renewedSignIn = false
        while let step = sequence.next() {
            do {
                try await perform(step, &sequence)
                sequence.completed(step)
                if step == .sendOutbox { await store.checkpointSoon() }
            } catch let error as CloudError {
                switch configuration.retryPolicy.response(to: error, attempt: configuration.retryPolicy.maximumAttempts, random: 0) {
                case .goOffline:
                    goOffline(error)
                    sequence.abandon()
                    failed = true
                case .signedOut where !renewedSignIn && signInRenewal != nil:
                    // The kept token was refused: sign in again (or learn why not), then run the pass from its start.
                    renewedSignIn = true
                    if await renewSignIn(refused: error) {
                        sequence = SyncSequence(
                            reasons: reasons, flags: (try? await launchFlags()) ?? flags, signedIn: true, publicPollDue: pollDue,
                            accountCheckDue: true)
                    } else {
                        sequence.accountUnavailable()
                    }
                case .signedOut where client.authToken == nil && connection == .signedOut:
                    sequence.accountUnavailable()  // signed out already: the words saying why and what to do stay
                case .signedOut:
                    signedOut("signed out: \(error.reason)", ended: client.authToken != nil)
                    sequence.accountUnavailable()
                case .recreateZone where zoneRecoveries < 2:
                    zoneRecoveries += 1
                    do {
                        if error.code == .userDeletedZone {
                            try await purgeZoneDeletedByUser(&sequence)
                        } else {
                            try await recoverMissingZone(&sequence)
                        }
                    } catch {
                        lastError = "\(error)"
                        failed = true
                    }
                default:
                    lastError = Self.words(for: error)
                    failed = true
                }
            } catch is CancellationError {
                sequence.abandon()
                failed = true
            } catch {
                lastError = "\(error)"
                failed = true
            }
        }
        outboxPrefetch?.chunk.cancel()  // the pass ended before it sent
        outboxPrefetch = nil
        if !failed { await refreshInvitationsAfterPass(reasons) }
        if !failed && connection == .online && !Task.isCancelled { await purgeTrashIfDue() }
        // Cancelled (the app is quitting): the counts are not read again; whoever opens the cache next reads them.
        if !Task.isCancelled { try? await reloadCounts() }
        if !failed && connection == .online {
            lastSyncAt = clock.now()
            try? await store.setLastSyncAt(clock.nowMilliseconds())
            if failedCount == 0 { lastError = nil }  // transient trouble (busy, offline) is over
        }
        if let notice {
            lastError = notice
            self.notice = nil
        }
        await saveEditClock()
        await persistNotices()
        isSyncing = false
        progress = nil
        completedPasses += 1
        publish()
    }

    /// Words for the user about an error.
    static func words(for error: CloudError) -> String {
        switch RetryPolicy().response(to: error, attempt: RetryPolicy().maximumAttempts, random: 0) {
        case .fatal(let message): message
        default: error.description
        }
    }

    /// Performs one step of the sequence.
    func perform(_ step: SyncSequence.Step, _ sequence: inout SyncSequence) async throws {
        switch step {
        case .checkAccount: try await checkAccount(&sequence)
        case .createZone: try await createTodosZone()
        case .saveSubscriptions(let p, let s): try await saveSubscriptions(private: p, shared: s)
        case .fetchChanges(let scope): try await fetchChanges(scope, &sequence)
        case .sendOutbox: try await sendOutbox(&sequence)
        case .pollPublicBoard: try await pollPublicBoard()
        }
    }

    /// Runs `operation`, waiting and retrying on throttling / busy answers as the policy says.
    func withRetries<T: Sendable>(_ operation: () async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            do {
                return try await operation()
            } catch let error as CloudError {
                guard case .retry(let delay) = configuration.retryPolicy.response(to: error, attempt: attempt, random: random()) else {
                    throw error
                }
                retryWaits.append(delay)
                lastError = "cloud busy (\(error.code.rawValue)); retrying in \(String(format: "%.1f", delay)) s"
                publish()
                try await clock.sleep(seconds: delay)
                attempt += 1
            }
        }
    }

    // MARK: Steps

    func checkAccount(_ sequence: inout SyncSequence) async throws {
        let identity = try await withRetries { try await client.caller() }
        let state = try await store.syncState()
        if let previous = state.lastKnownUser, previous != identity.userRecordName {
            // Another user: the old cache must not leak into this account.
            try await store.wipe()
            invalidateAll()
            lastPublicPollAt = nil
            sequence.zoneMissing()
            try await reloadCounts()
        }
        if state.lastKnownUser != identity.userRecordName { try await store.setLastKnownUser(identity.userRecordName) }
        userRecordName = identity.userRecordName
        await measureCloudClockIfDue()
        if connection != .online {
            connection = .online
            if lastError?.hasPrefix("offline") == true || lastError?.hasPrefix("signed out") == true { lastError = nil }
        }
        publish()
    }

    func createTodosZone() async throws {
        let results = try await withRetries {
            try await client.modifyZones(.private, ModifyZonesRequest(operations: [.init(.create, ZoneKey.privateTodos.zoneID)]))
        }
        if let error = results.first?.error, error.serverErrorCode != .exists { throw CloudError(error) }
        try await store.setFlag(.createdCustomZone, true)
    }

    func saveSubscriptions(private wantsPrivate: Bool, shared wantsShared: Bool) async throws {
        for (scope, wanted, id, flag) in [
            (DatabaseScope.private, wantsPrivate, TodoSchema.privateSubscriptionID, SyncFlag.subscribedToPrivateChanges),
            (.shared, wantsShared, TodoSchema.sharedSubscriptionID, SyncFlag.subscribedToSharedChanges),
        ] where wanted {
            let subscription = Subscription(
                subscriptionID: id, subscriptionType: .database, notificationInfo: NotificationInfo(shouldSendContentAvailable: true))
            let results = try await withRetries {
                try await client.modifySubscriptions(scope, ModifySubscriptionsRequest(operations: [.init(.create, subscription)]))
            }
            if let error = results.first?.error, error.serverErrorCode != .exists { throw CloudError(error) }
            try await store.setFlag(flag, true)
        }
    }

    /// `changes/database`, then every zone it named, then (only then) the database token.
    func fetchChanges(_ scope: DatabaseScope, _ sequence: inout SyncSequence) async throws {
        var token = try await store.syncState().databaseTokens[scope]
        var changed: [ZoneKey] = []
        var removedTodos = false
        var expiredOnce = false
        while true {
            let request = DatabaseChangesRequest(syncToken: token)
            let response: DatabaseChangesResponse
            do {
                response = try await withRetries { try await client.databaseChanges(scope, request) }
            } catch let error as CloudError where error.code == .changeTokenExpired && !expiredOnce {
                expiredOnce = true
                token = nil
                changed.removeAll()
                continue
            }
            for zone in response.zones {
                let key = ZoneKey(scope: scope, zoneID: zone.zoneID)
                if zone.deleted == true {
                    let dropped = try await pendingTitles(in: key)
                    try await store.removeZone(key)  // committed before the database token that announced it
                    reportDropped(dropped)
                    invalidateAll()
                    if key == .privateTodos, zone.purged == true {
                        report(SyncNotice(.dataDeleted, "Your todos were deleted from the cloud on another device; removed here too."))
                    }
                    changed.removeAll { $0 == key }
                    if key == .privateTodos { removedTodos = true }
                } else if !changed.contains(key) {
                    changed.append(key)
                }
            }
            token = response.syncToken
            if !response.moreComing { break }
        }
        if scope == .private, !removedTodos, !changed.contains(.privateTodos), try await store.zoneToken(.privateTodos) == nil {
            changed.append(.privateTodos)  // never fetched, or refetch from scratch pending
        }
        for zone in changed {
            try await fetchZone(zone, &sequence)
        }
        try await store.setDatabaseToken(token, for: scope)
        if removedTodos {
            try await reloadCounts()
            sequence.zoneMissing()
        }
    }

    /// One page of a zone's changes after `token`, retried on throttling; a per-zone error is thrown.
    func fetchZonePage(_ zone: ZoneKey, after token: ChangeToken?) async throws -> ZoneChanges {
        let query = ZoneChangesQuery(zoneID: zone.zoneID, syncToken: token, resultsLimit: configuration.fetchPageSize)
        return try await withRetries {
            let response = try await client.zoneChanges(zone.scope, ZoneChangesRequest(zones: [query]))
            guard let page = response.zones.first else {
                throw CloudError(.invalidResponse, "changes/zone answered no zone")
            }
            if let error = page.error {
                var cloudError = CloudError(error)
                if error.serverErrorCode == .tryAgainLater { cloudError.code = .zoneBusy }
                throw cloudError
            }
            return page
        }
    }

    /// Pages through one zone's changes, each page and its token in one transaction.
    ///
    /// The next page is asked for while the current one is written (it only needs the page's token); pages are still
    /// committed one by one, in order, each with its own token.
    func fetchZone(_ zone: ZoneKey, _ sequence: inout SyncSequence) async throws {
        var restarted = false
        var token = try await store.zoneToken(zone)
        var prefetched: Task<ZoneChanges, any Error>?
        defer { prefetched?.cancel() }
        while true {
            let page: ZoneChanges
            do {
                if let ahead = prefetched {
                    prefetched = nil
                    page = try await ahead.value
                } else {
                    page = try await fetchZonePage(zone, after: token)
                }
            } catch let error as CloudError where error.code == .changeTokenExpired && !restarted {
                restarted = true
                try await store.restartZoneFetch(zone)  // drop the token; the refetch reconciles
                token = nil
                continue
            } catch let error as CloudError where error.code == .zoneNotFound || error.code == .userDeletedZone {
                if zone.scope == .private && zone.zoneName == TodoSchema.zoneName { throw error }
                let dropped = try await pendingTitles(in: zone)
                try await store.removeZone(zone)  // someone else's zone, or one we do not own: forget it
                reportDropped(dropped)
                invalidateAll()
                return
            }
            if page.moreComing, let next = page.syncToken {
                prefetched = Task { try await self.fetchZonePage(zone, after: next) }
            }
            let applied = try await store.applyZoneChanges(
                zone, records: page.records, token: page.syncToken, moreComing: page.moreComing, merge: fieldMerge)
            observeCloudTime(page.records.lazy.compactMap(\.modified?.timestamp).max())
            if applied.removedStale > 0 {
                invalidateAll()  // the end of a refetch from scratch removed records no page named
            } else {
                invalidate(page.records.map { RecordKey(scope: zone.scope, zoneName: zone.zoneName, zoneOwner: zone.zoneOwner, recordName: $0.recordName) })
            }
            progress = FetchProgress(fetched: (progress?.fetched ?? 0) + page.records.count)
            publish()
            if !page.moreComing || page.syncToken == nil { return }
            token = page.syncToken
        }
    }

    /// The zone is gone on the server: queue every local record for re-upload and recreate zone and subscriptions.
    func recoverMissingZone(_ sequence: inout SyncSequence) async throws {
        invalidateAll()
        try await store.prepareReupload(of: .privateTodos, now: clock.nowMilliseconds())
        try await store.forgetZoneAndSubscriptions()
        sequence.zoneMissing()
    }

    /// The titles of this device's unsent changes in a shared zone (what removing the zone would drop unsaid).
    func pendingTitles(in zone: ZoneKey) async throws -> [String] {
        guard zone.scope == .shared else { return [] }
        return try await store.pendingChanges(includeFailed: true).filter { $0.key.zone == zone }.map { change in
            if case .save(let item) = change.action { return item.title }
            return change.key.recordName
        }
    }

    /// Says that unsent changes went with a zone the user lost access to (unshared, removed, left elsewhere).
    func reportDropped(_ titles: [String]) {
        guard !titles.isEmpty else { return }
        let named = titles.prefix(3).map { "'\($0)'" }.joined(separator: ", ") + (titles.count > 3 ? " and \(titles.count - 3) more" : "")
        report(SyncNotice(.reverted, "Your change to \(named) was reverted: the list is no longer shared with you"))
    }

    /// The user deleted their data (`USER_DELETED_ZONE`, seen on fetch or on send): purge the private zone here too,
    /// pending edits included, and recreate it empty with its subscriptions — what the database feed's zone deletion
    /// does, so "delete my data" sticks whichever device syncs first.
    func purgeZoneDeletedByUser(_ sequence: inout SyncSequence) async throws {
        try await store.removeZone(.privateTodos)
        try await store.forgetZoneAndSubscriptions()
        invalidateAll()
        try await reloadCounts()
        sequence.zoneMissing()
        report(SyncNotice(.dataDeleted, "Your todos were deleted from the cloud on another device; removed here too."))
    }

    /// Queries the public board for records modified since the last poll (a little overlap; applying is idempotent).
    func pollPublicBoard() async throws {
        let mark = try await store.syncState().lastPublicPoll
        var filters: [QueryFilter] = []
        if let mark {
            filters.append(QueryFilter(.greaterThan, systemFieldName: "modifiedTimestamp", .timestamp(max(0, mark - 5_000))))
        }
        let query = Query(
            recordType: TodoSchema.todoType, filterBy: filters.isEmpty ? nil : filters,
            sortBy: [QuerySort(systemFieldName: "modifiedTimestamp", ascending: true)])
        var marker: String?
        var newest = mark
        repeat {
            let request = QueryRequest(query: query, zoneID: .default, resultsLimit: CloudLimits.maxResultsPerPage, continuationMarker: marker)
            let page = try await withRetries { try await client.queryRecords(.public, request) }
            for record in page.records {
                if let time = record.modified?.timestamp, time > (newest ?? Int64.min) { newest = time }
            }
            marker = page.continuationMarker
            try await store.applyPublicRecords(page.records, pollMark: marker == nil ? newest : nil)
            invalidate(page.records.map { RecordKey.publicRecord($0.recordName) })
        } while marker != nil
        lastPublicPollAt = clock.now()
    }
}
