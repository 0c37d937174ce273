import CloudClient
import CloudModel
import Foundation
import TodoStore

/// Sees what other processes write to this device's cache.
///
/// Why `PRAGMA data_version`: SQLite itself answers whether another connection committed to the file since this
/// connection last asked, so our own writes (and checkpoints) never count, any writer counts (the command line, a
/// second app window, an older build), and asking costs one in-memory pragma. A file watch would fire on our own
/// commits and checkpoints too and cannot say whose they were; a local socket would need every writer to announce
/// itself, and a writer that crashes before announcing would leave the app stale. Confined to the engine's actor.
final class CacheWatch {
    private let store: TodoStore
    private let clock: any SyncClock
    private let status: EngineStatus
    private let feed: ChangeFeed
    private let work: BackgroundWork
    private let link: EngineLink
    /// The cache's `data_version` last seen.
    private var dataVersion: Int64?
    private var watching = false

    init(store: TodoStore, clock: any SyncClock, status: EngineStatus, feed: ChangeFeed, work: BackgroundWork, link: EngineLink) {
        self.store = store
        self.clock = clock
        self.status = status
        self.feed = feed
        self.work = work
        self.link = link
    }

    /// Starts checking every `interval` seconds (once).
    nonisolated(nonsending) func watch(every interval: Double) async {
        guard !watching else { return }
        watching = true
        dataVersion = try? await store.dataVersion()
        let (clock, link) = (clock, link)
        work.spawn {
            while !Task.isCancelled {
                do { try await clock.sleep(seconds: interval) } catch { return }
                guard let engine = link.engine else { return }
                await engine.checkCacheForOtherWriters()
            }
        }
    }

    /// The engine stopped: the next `watch` starts again.
    func ended() { watching = false }

    /// Compares the cache's `data_version` with the last one seen; on a change (another process committed) every
    /// reader reads the cache again (their rows stay on screen until replaced), the counts are read again and, if
    /// invitations were showing, they are asked for again (`todo accept` in another shell answers them).
    nonisolated(nonsending) func check() async {
        guard let version = try? await store.dataVersion() else { return }
        let seen = dataVersion
        dataVersion = version
        guard let seen, seen != version else { return }
        feed.invalidateAll()
        if let state = try? await store.syncState() { status.noteLastSync(state.lastSyncAt) }
        try? await status.reloadCounts(store)
        feed.publish()
        if status.connection == .online, !status.invitations.isEmpty {
            let link = link
            work.spawn { _ = try? await link.engine?.sharedWithMe() }
        }
    }
}
