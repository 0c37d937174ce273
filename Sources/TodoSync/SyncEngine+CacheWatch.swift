import Foundation
import TodoStore

/// Seeing what other processes write to this device's cache, and polling the public board faster while it is on screen.
///
/// Why `PRAGMA data_version`: SQLite itself answers whether another connection committed to the file since this
/// connection last asked, so our own writes (and checkpoints) never count, any writer counts (the command line, a
/// second app window, an older build), and asking costs one in-memory pragma. A file watch would fire on our own
/// commits and checkpoints too and cannot say whose they were; a local socket would need every writer to announce
/// itself, and a writer that crashes before announcing would leave the app stale.
extension SyncEngine {
    /// Seconds between public-board polls while its tab is on screen.
    public static let visiblePublicPollInterval: Double = 30

    /// Starts polling the cache for other processes' commits every `interval` seconds; on one, every reader reads
    /// the cache again (their rows stay on screen until replaced), the counts are read again and, if invitations were
    /// showing, they are asked for again (`todo accept` in another shell answers them).
    public func watchCacheForOtherWriters(every interval: Double = 0.2) async {
        guard cacheWatchTask == nil else { return }
        cacheDataVersion = try? await store.dataVersion()
        cacheWatchTask = Task { [weak self, clock] in
            while !Task.isCancelled {
                do { try await clock.sleep(seconds: interval) } catch { return }
                guard let self else { return }
                await self.checkCacheForOtherWriters()
            }
        }
    }

    /// Compares the cache's `data_version` with the last one seen; a change means another process committed.
    public func checkCacheForOtherWriters() async {
        guard let version = try? await store.dataVersion() else { return }
        let seen = cacheDataVersion
        cacheDataVersion = version
        guard let seen, seen != version else { return }
        await otherProcessWrote()
    }

    private func otherProcessWrote() async {
        invalidateAll()
        if let state = try? await store.syncState() {
            lastSyncAt = state.lastSyncAt.map { Date(timeIntervalSince1970: Double($0) / 1000) }
        }
        try? await reloadCounts()
        publish()
        if connection == .online, !invitations.isEmpty {
            Task { _ = try? await self.sharedWithMe() }
        }
    }

    /// Says whether the public board's tab is on screen: while it is, the board is polled every
    /// `visiblePublicPollInterval` seconds, and becoming visible polls at once when the last poll is older than that.
    public func setPublicBoardVisible(_ visible: Bool) {
        guard visible != publicBoardVisible else { return }
        publicBoardVisible = visible
        if visible {
            let stale = lastPublicPollAt.map { clock.now().timeIntervalSince($0) >= Self.visiblePublicPollInterval / 6 } ?? true
            if stale { requestSync(.publicPollTimer) }
        }
        restartPublicPollTimer()
    }

    /// The public board's poll interval now: short while its tab is on screen, the configured one otherwise.
    var currentPublicPollInterval: Double {
        publicBoardVisible ? min(Self.visiblePublicPollInterval, configuration.publicPollInterval) : configuration.publicPollInterval
    }

    private func restartPublicPollTimer() {
        guard pollTask != nil else { return }
        pollTask?.cancel()
        pollTask = nil
        startPublicPollTimer()
    }
}
