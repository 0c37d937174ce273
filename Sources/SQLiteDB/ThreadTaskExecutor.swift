import Foundation

/// An executor with a thread of its own, for work that blocks (SQLite calls, fsync): it runs there instead of on
/// Swift's cooperative pool, whose few threads every task shares. Jobs run one at a time, in the order they came.
///
/// Serves both as an actor's executor (`nonisolated var unownedExecutor`: every method of the actor runs on this
/// thread) and as a task executor preference (`withTaskExecutorPreference`: a body and what it calls run here). Its
/// thread may call SQLite in debug builds (see `SQLiteDatabase.allowBlocking`).
///
/// The two roles enqueue through different objects, because a job must run as what it was queued for: a job run
/// isolated to a serial executor that was only queued for the task executor switches away at every nonisolated call
/// and comes back through the queue (measured: 13 % more cloud CPU per record written).
public final class ThreadTaskExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [(job: UnownedJob, isolated: Bool)] = []
    /// The actor-executor role, on the same thread and queue.
    private var serial: SerialRole!
    private var stopping = false
    private var last: (@Sendable () -> Void)?
    /// The thread's identity, to tell whether code runs on it (`checkIsolated`).
    private var thread: pthread_t?

    /// Starts the thread, named `name` (as `top` and debuggers show it).
    public init(name: String) {
        serial = SerialRole(owner: self)
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    /// Queues a job for the thread (as a task executor preference).
    public func enqueue(_ job: consuming ExecutorJob) {
        enqueue(UnownedJob(job), isolated: false)
    }

    private func enqueue(_ job: UnownedJob, isolated: Bool) {
        condition.withLock {
            jobs.append((job, isolated))
            condition.signal()
        }
    }

    /// This executor as an actor's.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor { serial.asUnownedSerialExecutor() }

    /// The actor-executor role: its jobs run isolated to it, on the owner's thread.
    private final class SerialRole: SerialExecutor, @unchecked Sendable {
        unowned let owner: ThreadTaskExecutor

        init(owner: ThreadTaskExecutor) { self.owner = owner }

        func enqueue(_ job: consuming ExecutorJob) { owner.enqueue(UnownedJob(job), isolated: true) }

        func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

        func checkIsolated() { owner.checkIsolated() }
    }

    /// Whether the caller runs on this executor's thread.
    public var isCurrentThread: Bool {
        let current = pthread_self()
        return condition.withLock { thread }.map { pthread_equal($0, current) != 0 } ?? false
    }

    /// Traps unless called on this executor's thread (what `assumeIsolated` and `preconditionIsolated` ask).
    public func checkIsolated() {
        precondition(isCurrentThread, "not on the thread of this ThreadTaskExecutor")
    }

    /// Ends the thread once the jobs already queued have run; `last` (if any) runs on the thread before it ends:
    /// an owner's connection closes there, not on the thread that dropped the owner.
    public func stop(last: (@Sendable () -> Void)? = nil) {
        condition.withLock {
            let earlier = self.last
            if let last {
                self.last = { @Sendable in
                    earlier?()
                    last()
                }
            }
            stopping = true
            condition.signal()
        }
    }

    /// Ends the thread as `stop(last:)` does, handing it `owned`'s reference (which becomes nil): when that is the
    /// last one, the object is released on the thread, not on the caller's (an owner's deinit closing a connection
    /// there, where closing may write to the disk).
    public func stop<Owned: AnyObject>(releasing owned: inout Owned?) {
        // Unmanaged, so no reference is left on this thread to race the thread's release.
        let handOver = HandOver(object: owned.map { Unmanaged<AnyObject>.passRetained($0) })
        owned = nil
        stop(last: { handOver.object?.release() })
    }

    /// A reference moving to the thread, retained once.
    private struct HandOver: @unchecked Sendable {
        let object: Unmanaged<AnyObject>?
    }

    private func run() {
        condition.withLock { thread = pthread_self() }
        SQLiteDatabase.markBlockingThread()
        var batch: [(job: UnownedJob, isolated: Bool)] = []
        while true {
            condition.lock()
            while jobs.isEmpty && !stopping { condition.wait() }
            if jobs.isEmpty {
                let last = self.last
                self.last = nil
                condition.unlock()
                last?()
                return
            }
            swap(&batch, &jobs)
            condition.unlock()
            for (job, isolated) in batch {
                if isolated {
                    job.runSynchronously(isolatedTo: serial.asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
                } else {
                    job.runSynchronously(on: asUnownedTaskExecutor())
                }
            }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
