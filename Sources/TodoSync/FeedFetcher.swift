import CloudClient
import CloudModel
import Foundation
import TodoStore

/// The fetch side of a pass: `changes/database` for a scope, then `changes/zone` for every zone it named, each page
/// and its token committed in one transaction, the database token last. Confined to the engine's actor.
final class FeedFetcher {
    private let store: TodoStore
    private let clock: any SyncClock
    private let calls: CloudCalls
    private let pageSize: Int
    private let status: EngineStatus
    private let feed: ChangeFeed
    private let notices: NoticeLog
    private let time: CloudTime
    private let merge: FieldMerge

    init(
        store: TodoStore, clock: any SyncClock, calls: CloudCalls, configuration: SyncConfiguration, status: EngineStatus,
        feed: ChangeFeed, notices: NoticeLog, time: CloudTime
    ) {
        self.store = store
        self.clock = clock
        self.calls = calls
        pageSize = configuration.fetchPageSize
        self.status = status
        self.feed = feed
        self.notices = notices
        self.time = time
        merge = ConflictMerge.fieldMerge(deviceID: configuration.deviceID)
    }

    /// `changes/database`, then every zone it named, then (only then) the database token.
    nonisolated(nonsending) func fetchChanges(_ scope: DatabaseScope, _ pass: inout PassProgress) async throws {
        let client = calls.client
        var token = pass.state.databaseTokens[scope]
        var changed: [ZoneKey] = []
        var removedTodos = false
        var expiredOnce = false
        while true {
            let request = DatabaseChangesRequest(syncToken: token)
            let response: DatabaseChangesResponse
            do {
                response = try await calls.withRetries { try await client.databaseChanges(scope, request) }
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
                    pass.state.zoneTokens[key] = nil
                    reportDropped(dropped)
                    feed.invalidateAll()
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
            try await fetchZone(zone)
        }
        try await store.setDatabaseToken(token, for: scope)
        pass.state.databaseTokens[scope] = token
        if removedTodos {
            try await status.reloadCounts(store)
            pass.sequence.zoneMissing()
        }
    }

    /// One page of a zone's changes after `token`, retried on throttling; a per-zone error is thrown.
    static func page(_ zone: ZoneKey, after token: ChangeToken?, size: Int, _ calls: CloudCalls) async throws -> ZoneChanges {
        let query = ZoneChangesQuery(zoneID: zone.zoneID, syncToken: token, resultsLimit: size)
        return try await calls.withRetries {
            let response = try await calls.client.zoneChanges(zone.scope, ZoneChangesRequest(zones: [query]))
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

    /// The page after `token` when there is one, as a result (it is taken, or dropped, once the current page is written).
    private static func pageAhead(
        _ zone: ZoneKey, after token: ChangeToken?, size: Int, _ calls: CloudCalls
    ) async -> Result<ZoneChanges, any Error>? {
        guard let token else { return nil }
        do {
            return .success(try await page(zone, after: token, size: size, calls))
        } catch {
            return .failure(error)
        }
    }

    /// Pages through one zone's changes, each page and its token in one transaction.
    ///
    /// The next page is asked for while the current one is written (it only needs the page's token); pages are still
    /// committed one by one, in order, each with its own token.
    nonisolated(nonsending) func fetchZone(_ zone: ZoneKey) async throws {
        let (calls, size) = (calls, pageSize)
        var restarted = false
        var token = try await store.zoneToken(zone)
        var fetchedAhead: Result<ZoneChanges, any Error>?
        // The zone arriving whole (its first page went into an empty zone): its later pages write no history either.
        var arrivingWhole = false
        while true {
            let page: ZoneChanges
            do {
                if let ahead = fetchedAhead {
                    fetchedAhead = nil
                    page = try ahead.get()
                } else {
                    page = try await Self.page(zone, after: token, size: size, calls)
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
                feed.invalidateAll()
                return
            }
            let next = page.moreComing ? page.syncToken : nil
            async let ahead = Self.pageAhead(zone, after: next, size: size, calls)
            let applied = try await store.applyZoneChanges(
                zone, records: page.records, token: page.syncToken, moreComing: page.moreComing, merge: merge, arrivingWhole: arrivingWhole)
            arrivingWhole = applied.arrivedWhole
            time.observeCloudTime(page.records.lazy.compactMap(\.modified?.timestamp).max())
            if applied.removedStale > 0 {
                feed.invalidateAll()  // the end of a refetch from scratch removed records no page named
            } else {
                feed.invalidate(page.records.map { RecordKey(scope: zone.scope, zoneName: zone.zoneName, zoneOwner: zone.zoneOwner, recordName: $0.recordName) })
            }
            status.progress = FetchProgress(fetched: (status.progress?.fetched ?? 0) + page.records.count)
            feed.publish()
            guard next != nil else { return }
            token = next
            fetchedAhead = await ahead
        }
    }

    /// The titles of this device's unsent changes in a shared zone (what removing the zone would drop unsaid).
    nonisolated(nonsending) func pendingTitles(in zone: ZoneKey) async throws -> [String] {
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

    private func report(_ notice: SyncNotice) { notices.report(notice, at: clock.nowMilliseconds()) }
}
