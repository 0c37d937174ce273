/// When passes run: reasons asked for while a pass runs are coalesced into the next one, and one drain at a time runs
/// passes (as a job of the engine's `BackgroundWork`) until none is queued. Confined to the engine's actor.
final class PassScheduler {
    private let work: BackgroundWork
    private let link: EngineLink
    private var queued: Set<SyncReason> = []
    /// Whether a drain runs (or is about to).
    private var draining = false
    /// Callers waiting for the drain to end.
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []

    init(work: BackgroundWork, link: EngineLink) {
        self.work = work
        self.link = link
    }

    /// Queues a pass for `reason` without waiting for it.
    func request(_ reason: SyncReason) {
        queued.insert(reason)
        guard !draining else { return }
        draining = true
        work.spawn { [link] in await link.engine?.drainQueuedPasses() }
    }

    /// Runs a pass for `reason` (coalesced with any pass already queued) and returns when no pass runs or is queued.
    nonisolated(nonsending) func sync(_ reason: SyncReason) async {
        request(reason)
        await waitUntilIdle()
    }

    /// Waits until no pass runs or is queued.
    nonisolated(nonsending) func waitUntilIdle() async {
        guard draining else { return }
        await withCheckedContinuation { idleWaiters.append($0) }
    }

    /// The reasons of the next pass, nil when none is queued or the drain was cancelled.
    func next() -> Set<SyncReason>? {
        guard !queued.isEmpty, !Task.isCancelled else { return nil }
        defer { queued.removeAll() }
        return queued
    }

    /// The drain ended: whoever waited goes on.
    func drained() {
        draining = false
        let waiters = idleWaiters
        idleWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
    }

    /// Forgets the queued reasons (the engine stops); once the drain was cancelled, `drained()` releases the waiters.
    func dropQueued() { queued.removeAll() }
}
