import Synchronization

/// The engine's background work in one place: a root task whose task group runs every job (passes, the push
/// listener, the poll timer, the reachability probe, the cache watch), so that stopping the engine cancels them all
/// and waits for them; nothing the engine starts outlives `stop()`.
///
/// The root starts with the first job (a command-line `sync` needs no `start()`) and again after a stop.
/// Confined to the engine's actor like every part of it.
final class BackgroundWork {
    /// A job and the handle that can end it alone.
    private struct Job: Sendable {
        var run: @Sendable () async -> Void
        var handle: WorkHandle?
    }

    private var root: Task<Void, Never>?
    private var jobs: AsyncStream<Job>.Continuation?

    deinit {
        jobs?.finish()
        root?.cancel()
    }

    /// Runs `job` in the root's group.
    func spawn(_ job: @escaping @Sendable () async -> Void) {
        submit(Job(run: job, handle: nil))
    }

    /// Runs `job` in the root's group; the handle ends it alone (a timer restarted, a listener stopped).
    func spawnCancellable(_ job: @escaping @Sendable () async -> Void) -> WorkHandle {
        let handle = WorkHandle()
        submit(Job(run: job, handle: handle))
        return handle
    }

    /// Cancels every job and waits until all have ended; the next job starts a new root.
    nonisolated(nonsending) func stop() async {
        let running = root
        jobs?.finish()
        running?.cancel()
        root = nil
        jobs = nil
        await running?.value
    }

    private func submit(_ job: Job) {
        if jobs == nil {
            let (stream, continuation) = AsyncStream.makeStream(of: Job.self)
            jobs = continuation
            // The engine's one unstructured task: everything else it runs is a child of this group.
            root = Task {
                await withDiscardingTaskGroup { group in
                    for await job in stream {
                        group.addTask {
                            if let handle = job.handle { await handle.run(job.run) } else { await job.run() }
                        }
                    }
                }
            }
        }
        jobs?.yield(job)
    }
}

/// Ends one job of `BackgroundWork` without cancelling the others.
final class WorkHandle: Sendable {
    private struct State {
        var cancelled = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// Ends the job (at once if it waits, else at its next cancellation check).
    func cancel() {
        let waiter = state.withLock { state in
            state.cancelled = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Runs `job` until it ends or the handle is cancelled, whichever comes first.
    fileprivate func run(_ job: @escaping @Sendable () async -> Void) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await job() }
            group.addTask { await self.untilCancelled() }
            await group.next()
            group.cancelAll()
        }
    }

    /// Returns once `cancel()` is called or the waiting task is cancelled.
    private func untilCancelled() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    if state.cancelled || Task.isCancelled { return true }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            cancel()
        }
    }
}

/// A weak way back to the engine for work that runs off its actor (background jobs, requests in flight): the jobs
/// never keep an engine alive that nobody holds.
final class EngineLink: Sendable {
    private struct Box {
        weak var engine: SyncEngine?
    }

    private let box = Mutex(Box())

    /// The engine, while it lives.
    var engine: SyncEngine? { box.withLock { $0.engine } }

    /// Links to `engine` (once, when it is made).
    func attach(_ engine: SyncEngine) { box.withLock { $0.engine = engine } }
}
