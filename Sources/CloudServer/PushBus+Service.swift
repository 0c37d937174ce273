import Foundation
import Logging

extension CloudService {
    /// Starts taking notices from the bus; on a shared bus the sign-in throttle's counts go out on it too.
    func startPushBus() async {
        if bus.isShared {
            let bus = self.bus
            throttle.share { event in
                Task { await bus.broadcast([.throttle(event, origin: bus.instanceID)]) }
            }
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
