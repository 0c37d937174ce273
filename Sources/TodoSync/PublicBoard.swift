import CloudClient
import CloudModel
import Foundation
import TodoStore

/// The public board: polled (it has no subscription) on a timer, faster while its tab is on screen, and by passes
/// whose reason asks for it. Confined to the engine's actor.
final class PublicBoard {
    private let store: TodoStore
    private let clock: any SyncClock
    private let calls: CloudCalls
    private let configuredInterval: Double
    private let feed: ChangeFeed
    private let work: BackgroundWork
    private let link: EngineLink
    private var lastPollAt: Date?
    /// Whether the public board's tab is on screen (it is then polled every `SyncEngine.visiblePublicPollInterval`).
    private var visible = false
    private var timer: WorkHandle?

    init(
        store: TodoStore, clock: any SyncClock, calls: CloudCalls, configuration: SyncConfiguration, feed: ChangeFeed,
        work: BackgroundWork, link: EngineLink
    ) {
        self.store = store
        self.clock = clock
        self.calls = calls
        configuredInterval = configuration.publicPollInterval
        self.feed = feed
        self.work = work
        self.link = link
    }

    /// The poll interval now: short while the board's tab is on screen, the configured one otherwise.
    var currentInterval: Double {
        visible ? min(SyncEngine.visiblePublicPollInterval, configuredInterval) : configuredInterval
    }

    /// Whether a pass should poll even if its reason does not ask.
    var isDue: Bool { lastPollAt.map { clock.now().timeIntervalSince($0) >= currentInterval } ?? true }

    /// Another user's cache was wiped: the next pass polls from scratch.
    func forgetLastPoll() { lastPollAt = nil }

    /// Queries the public board for records modified since the last poll (a little overlap; applying is idempotent).
    nonisolated(nonsending) func poll(_ pass: inout PassProgress) async throws {
        let mark = pass.state.lastPublicPoll
        var filters: [QueryFilter] = []
        if let mark {
            filters.append(QueryFilter(.greaterThan, systemFieldName: "modifiedTimestamp", .timestamp(max(0, mark - 5_000))))
        }
        let query = Query(
            recordType: TodoSchema.todoType, filterBy: filters.isEmpty ? nil : filters,
            sortBy: [QuerySort(systemFieldName: "modifiedTimestamp", ascending: true)])
        let client = calls.client
        var marker: String?
        var newest = mark
        repeat {
            let request = QueryRequest(query: query, zoneID: .default, resultsLimit: CloudLimits.maxResultsPerPage, continuationMarker: marker)
            let page = try await calls.withRetries { try await client.queryRecords(.public, request) }
            for record in page.records {
                if let time = record.modified?.timestamp, time > (newest ?? Int64.min) { newest = time }
            }
            marker = page.continuationMarker
            let pollMark = marker == nil ? newest : nil
            try await store.applyPublicRecords(page.records, pollMark: pollMark)
            if let pollMark { pass.state.lastPublicPoll = pollMark }
            feed.invalidate(page.records.map { RecordKey.publicRecord($0.recordName) })
        } while marker != nil
        lastPollAt = clock.now()
    }

    /// Says whether the board's tab is on screen; answers whether a poll is due at once (the last is older than a
    /// sixth of the short interval).
    func setVisible(_ shown: Bool) -> Bool {
        guard shown != visible else { return false }
        visible = shown
        let stale = shown && (lastPollAt.map { clock.now().timeIntervalSince($0) >= SyncEngine.visiblePublicPollInterval / 6 } ?? true)
        if timer != nil {
            stopTimer()
            startTimer()
        }
        return stale
    }

    /// Starts the poll timer (once), at the interval of now.
    func startTimer() {
        guard timer == nil else { return }
        let (interval, clock, link) = (currentInterval, clock, link)
        timer = work.spawnCancellable {
            while !Task.isCancelled {
                do { try await clock.sleep(seconds: interval) } catch { return }
                guard let engine = link.engine else { return }
                await engine.requestSync(.publicPollTimer)
            }
        }
    }

    /// Stops the timer (the engine stops, or the interval changes).
    func stopTimer() {
        timer?.cancel()
        timer = nil
    }
}
