import CloudClient
import CloudModel
import Foundation
import TodoStore

/// While offline, asks the cloud's health every `interval` seconds; the first answer brings the engine back.
/// Confined to the engine's actor.
final class ReachabilityProbe {
    private let client: CloudClient
    private let clock: any SyncClock
    private let interval: Double
    private let status: EngineStatus
    private let work: BackgroundWork
    private let link: EngineLink
    private var probing = false

    init(client: CloudClient, clock: any SyncClock, interval: Double, status: EngineStatus, work: BackgroundWork, link: EngineLink) {
        self.client = client
        self.clock = clock
        self.interval = interval
        self.status = status
        self.work = work
        self.link = link
    }

    /// The network is gone: says so and starts probing (once).
    func wentOffline(_ error: CloudError) {
        if status.connection != .signedOut { status.connection = .offline }
        status.lastError = "offline: \(error.reason)"
        guard !probing else { return }
        probing = true
        let (client, clock, interval, link) = (client, clock, interval, link)
        work.spawn {
            while !Task.isCancelled {
                do { try await clock.sleep(seconds: interval) } catch { return }
                if await client.isHealthy() {
                    await link.engine?.networkIsBack()
                    return
                }
            }
        }
    }

    /// The probe ended (the cloud answered, or the engine stopped).
    func ended() { probing = false }
}
