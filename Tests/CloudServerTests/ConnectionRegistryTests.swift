@testable import CloudServer
import Logging
import NIOCore
import NIOEmbedded
import Testing

/// Which connections the registry closes near its capacity: the longest idle, but never one its own event loop has
/// not yet reached while a set-up one is idle (that one may have a request waiting unread).
@Suite("Connection registry shedding")
struct ConnectionRegistryTests {
    /// A registry of `capacity` and channels admitted to it, with what happened to each.
    private final class Fixture {
        let registry = ConnectionRegistry(capacity: 64, logger: Logger(label: "test"))
        private(set) var channels: [EmbeddedChannel] = []
        private var closes: [Int] = []
        /// Indices of the channels closed so far, in order (each channel's own loop completes its close).
        var closed: [Int] {
            for channel in channels { channel.embeddedEventLoop.run() }
            return closes
        }

        /// Admits a new channel, claiming it (as its event loop would set it up) when `claimed`.
        @discardableResult
        func admit(claimed: Bool) -> EmbeddedChannel {
            let channel = EmbeddedChannel()
            let index = channels.count
            channels.append(channel)
            channel.closeFuture.assumeIsolated().whenComplete { _ in self.closes.append(index) }
            guard case .held = registry.admit(channel) else { Issue.record("channel \(channels.count - 1) not held"); return channel }
            if claimed { #expect(registry.claim(channel) != nil) }
            return channel
        }
    }

    @Test func aConnectionItsLoopHasNotReachedOutlivesOlderIdleOnes() throws {
        let fixture = Fixture()
        // The first is accepted but its loop lags; every later one is set up at once.
        let lagging = fixture.admit(claimed: false)
        for _ in 1..<62 { fixture.admit(claimed: true) }
        #expect(fixture.closed.isEmpty)
        // Two batches short of capacity (a batch is 64 / 32 = 2): the next admission sheds a batch.
        fixture.admit(claimed: true)
        #expect(fixture.closed == [1, 2], "the two longest-idle set-up connections go, not the one still unread")
        // Once reached, it is the longest idle again (idle time counts from the accept): it goes next.
        #expect(fixture.registry.claim(lagging) != nil)
        fixture.admit(claimed: true)
        fixture.admit(claimed: true)
        #expect(fixture.closed == [1, 2, 0, 3])
    }

    @Test func unreachedConnectionsGoWhenNothingElseIsIdle() throws {
        let fixture = Fixture()
        for _ in 0..<62 { fixture.admit(claimed: false) }
        fixture.admit(claimed: false)
        #expect(fixture.closed == [0, 1], "shedding still makes room, oldest first")
    }

    @Test func aBusyConnectionIsNeverShed() throws {
        let fixture = Fixture()
        let busy = fixture.admit(claimed: true)
        try #require(fixture.registry.claim(busy)).note(busy: true)
        for _ in 1..<63 { fixture.admit(claimed: true) }
        #expect(fixture.closed == [1, 2])
    }
}
