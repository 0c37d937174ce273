import Foundation
import Synchronization

/// How the notices of committed writes reach the push hub of every cloud instance.
///
/// A write hands its notices to `publish` inside its transaction (last, once it knows what it changed) and to
/// `committed` after the commit; a rolled-back write reaches neither the second nor, on PostgreSQL, any listener.
protocol PushBus: Sendable {
    /// Whether other instances share the storage: a token's mailbox then lives only on the instance it polls.
    var isShared: Bool { get }
    /// This instance's name on the bus (what its own throttle notices carry as their origin).
    var instanceID: String { get }
    /// Sends `notices` with the transaction `carrier` belongs to (delivered when it commits, never when it rolls back);
    /// `carrier` is the write's transaction when its store can carry notices.
    func publish(_ notices: [ChangeNotice], through carrier: (any NoticeCarryingTransaction)?) async throws
    /// Called once the transaction that published `notices` committed.
    func committed(_ notices: [ChangeNotice]) async
    /// Sends notices outside any write, best effort (throttle counts, test pushes).
    func broadcast(_ notices: [ChangeNotice]) async
    /// Queues notices for `broadcast` without waiting: they go out in the order they were posted.
    func post(_ notices: [ChangeNotice])
    /// Starts handing every instance's notices (this one's included) to `receiver`, until `shutDown`.
    func start(_ receiver: any NoticeReceiver) async
    /// Stops listening; no notice reaches the receiver afterwards.
    func shutDown() async
    /// Whether this instance should run `job` now: always with one instance; with several, only the instance that
    /// holds the job's lock (it keeps it until it stops or loses its connection).
    func leads(_ job: ElectedJob) async -> Bool
}

/// What gets the notices a bus brings.
protocol NoticeReceiver: Sendable {
    /// Notices of committed writes, in the order of their commits on each instance.
    func receive(_ notices: [ChangeNotice]) async
    /// Notices may have been lost (the connection that brings them went away, or has just come back).
    func noticesMayBeLost() async
}

/// Work that one instance of a cloud does for all of them.
enum ElectedJob: Int64, Sendable {
    /// Dropping old tombstones, idle sessions and stale push tokens.
    case compaction = 0x436C_6F75_6443_6F6D  // "CloudCom"
}

/// The bus of a cloud that runs as one process (SQLite, memory): a notice reaches the receiver right after its
/// transaction committed, before the request that wrote it is answered.
final class InProcessPushBus: PushBus, Sendable {
    private let receiver = Mutex<(any NoticeReceiver)?>(nil)
    let instanceID = UUID().uuidString
    var isShared: Bool { false }

    /// A bus for one process.
    init() {}

    func publish(_ notices: [ChangeNotice], through carrier: (any NoticeCarryingTransaction)?) async throws {}

    func committed(_ notices: [ChangeNotice]) async {
        guard !notices.isEmpty, let receiver = receiver.withLock({ $0 }) else { return }
        await receiver.receive(notices)
    }

    func broadcast(_ notices: [ChangeNotice]) async { await committed(notices) }

    func post(_ notices: [ChangeNotice]) {
        // One process: nothing to send to; the receiver hears of them in place.
        Task { await committed(notices) }
    }

    func start(_ receiver: any NoticeReceiver) async { self.receiver.withLock { $0 = receiver } }

    func shutDown() async { receiver.withLock { $0 = nil } }

    func leads(_ job: ElectedJob) async -> Bool { true }
}
