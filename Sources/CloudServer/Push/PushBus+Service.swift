import Foundation
import Logging

extension CloudServer {
    /// The bus the storage calls for: in process for a store one process owns; LISTEN/NOTIFY when instances share it.
    static func makeBus(_ configuration: ServerConfiguration, logger: Logger) throws -> any PushBus {
        switch configuration.storage {
        case .sqlite, .memory: InProcessPushBus()
        case .postgres(let url): PostgresPushBus(configuration: try url.connectionConfiguration(), logger: logger)
        }
    }
}

extension CloudService {
    /// Starts taking notices from the bus; on a shared bus the sign-in throttle's counts go out on it too.
    func startPushBus() async {
        if bus.isShared {
            let bus = self.bus
            // In order: a sign-in's hand-back must not overtake its count.
            throttle.share { event in bus.post([.throttle(event, origin: bus.instanceID)]) }
        }
        await bus.start(self)
    }

    /// The periodic compaction: on the one instance elected for it; every instance drops its gone tokens' mailboxes.
    func compactIfElected() async {
        if await bus.leads(.compaction) {
            do {
                try await compact()
            } catch {
                logger.warning("compaction failed", metadata: ["error": "\(error)"])
            }
        } else {
            await trimMailboxes()
        }
    }
}
