import CloudModel
import Foundation
import Logging
import PostgresNIO

/// The bus of a cloud whose instances share one PostgreSQL database: a write's notices go out with `pg_notify`
/// inside its transaction (PostgreSQL delivers them when it commits, and drops them when it rolls back), and every
/// instance's one LISTEN connection brings them, its own included, to its receiver.
final class PostgresPushBus: PushBus {
    /// The NOTIFY channel of the cloud's notices.
    static let channel = "cloudtodo_notices"

    let instanceID = UUID().uuidString
    var isShared: Bool { true }
    private let listener: NotificationListener
    private let logger: Logger
    /// What `post` queued, sent one after another by `sender`.
    private let posted: AsyncStream<[ChangeNotice]>.Continuation
    private let sender: Task<Void, Never>

    /// A bus over the database `configuration` connects to.
    init(configuration: PostgresConnection.Configuration, logger: Logger, minimumBackoff: Double = 0.05, maximumBackoff: Double = 5) {
        self.logger = logger
        let listener = NotificationListener(
            configuration: configuration, channel: Self.channel, logger: logger, minimumBackoff: minimumBackoff,
            maximumBackoff: maximumBackoff)
        self.listener = listener
        let (queue, posted) = AsyncStream.makeStream(of: [ChangeNotice].self)
        self.posted = posted
        sender = Task {
            for await notices in queue {
                for payload in NoticePayload.pack(notices).payloads where !(await listener.notify(payload)) {
                    logger.warning("push notice not sent: no connection to PostgreSQL now")
                }
            }
        }
    }

    func post(_ notices: [ChangeNotice]) { posted.yield(notices) }

    func publish(_ notices: [ChangeNotice], through carrier: (any NoticeCarryingTransaction)?) async throws {
        guard !notices.isEmpty else { return }
        guard let carrier else {
            throw ServerError(.internalError, "this storage cannot carry push notices to other instances")
        }
        let (payloads, dropped) = NoticePayload.pack(notices)
        if dropped > 0 { logger.warning("push notices too large to send", metadata: ["dropped": "\(dropped)"]) }
        for payload in payloads { try await carrier.sendNotice(channel: Self.channel, payload: payload) }
    }

    func committed(_ notices: [ChangeNotice]) async {}

    func broadcast(_ notices: [ChangeNotice]) async {
        for payload in NoticePayload.pack(notices).payloads where !(await listener.notify(payload)) {
            logger.warning("push notice not sent: no connection to PostgreSQL now")
        }
    }

    func start(_ receiver: any NoticeReceiver) async {
        let logger = logger
        await listener.start(
            .init(
                payload: { payload in
                    guard let notices = NoticePayload.unpack(payload) else {
                        logger.warning("ignored a notice that is not one of ours", metadata: ["bytes": "\(payload.utf8.count)"])
                        return
                    }
                    await receiver.receive(notices)
                },
                listening: { afterLoss in
                    if afterLoss { await receiver.noticesMayBeLost() }
                },
                lost: { await receiver.noticesMayBeLost() }))
    }

    func shutDown() async {
        posted.finish()
        await sender.value
        await listener.stop()
    }

    func leads(_ job: ElectedJob) async -> Bool { await listener.holdLock(job.rawValue) }

    /// The backend process of this instance's LISTEN connection (tests end it to show what a lost connection does).
    func listenerBackendPID() async throws -> Int32? { try await listener.backendPID() }
}
