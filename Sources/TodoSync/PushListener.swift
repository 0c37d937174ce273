import CloudClient
import CloudModel
import Foundation
import TodoStore

/// Listens for pushes: the push channel's events become passes (a push fetches, a reconnection asks what was missed,
/// a refused registration checks the account). Confined to the engine's actor.
final class PushListener {
    private let client: CloudClient
    private let pollTimeout: Int
    private let work: BackgroundWork
    private let link: EngineLink
    private var channel: PushChannel?
    private var listener: WorkHandle?
    /// Whether the engine listens for pushes (started so, and so again after a new sign-in).
    private(set) var listens = false

    init(client: CloudClient, pollTimeout: Int, work: BackgroundWork, link: EngineLink) {
        self.client = client
        self.pollTimeout = pollTimeout
        self.work = work
        self.link = link
    }

    /// Starts listening (once), when signed in.
    func start() {
        listens = true
        guard listener == nil, client.authToken != nil else { return }
        let channel = PushChannel(client: client, pollTimeout: pollTimeout)
        self.channel = channel
        let (events, link) = (channel.events(), link)
        listener = work.spawnCancellable {
            var first = true
            for await event in events {
                guard let engine = link.engine else { return }
                switch event {
                case .connected:
                    // After a gap pushes may have been lost: ask the server. The first connect comes with the launch sync.
                    if !first { await engine.requestSync(.networkBack) }
                    first = false
                case .notification(let push):
                    await engine.handlePush(push)
                case .sessionEnded:
                    // Registering again was refused: a pass asks who is signed in, which renews or signs out.
                    await engine.requestSync(.networkBack)
                }
            }
        }
    }

    /// Stops the channel and its listener (signed out, or the engine stops); `listens` stays as it was.
    func stop() {
        channel?.stop()
        listener?.cancel()
        listener = nil
        channel = nil
    }
}
