import CloudModel
import Foundation
import Logging
import PostgresNIO
import PostgresTestSupport
import TestSupport
import Testing

@testable import CloudServer

/// The PostgreSQL bus on its own: two instances' buses on one real database, notices sent inside transactions.
@Suite("Push bus on PostgreSQL")
struct PushBusPostgresTests {
    private static let logger = Logger(label: "cloudtodo.test.bus")

    @Test func aCommittedNoticeReachesEveryInstanceAndARolledBackOneNone() async throws {
        try await PostgresTestDatabase.with { database in
            let configuration = try database.url.connectionConfiguration()
            let (a, b) = (PostgresPushBus(configuration: configuration, logger: Self.logger), PostgresPushBus(configuration: configuration, logger: Self.logger))
            let (heardByA, heardByB) = (NoticeRecorder(), NoticeRecorder())
            await a.start(heardByA)
            await b.start(heardByB)
            let writer = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: Self.logger)

            try await writer.query("BEGIN", logger: Self.logger)
            try await a.publish([.zoneSharesChanged(zonePK: 1)], through: RawTransaction(connection: writer))
            try await writer.query("ROLLBACK", logger: Self.logger)

            try await writer.query("BEGIN", logger: Self.logger)
            try await a.publish([.zoneSharesChanged(zonePK: 2)], through: RawTransaction(connection: writer))
            // Not before the commit: a marker committed meanwhile on another connection arrives first, and alone.
            let marker = try await PostgresConnection.connect(configuration: configuration, id: 2, logger: Self.logger)
            try await marker.query("SELECT pg_notify(\(PostgresPushBus.channel), \("[{\"k\":\"shr\",\"p\":99}]"))", logger: Self.logger)
            #expect(try await heardByB.waitForNotices(1) == [.zoneSharesChanged(zonePK: 99)])
            #expect(await heardByB.notices == [.zoneSharesChanged(zonePK: 99)])
            try await writer.query("COMMIT", logger: Self.logger)

            // NOTIFY is delivered in commit order: had the rolled-back one gone out, it would come before the marker.
            #expect(try await heardByB.waitForNotices(2) == [.zoneSharesChanged(zonePK: 99), .zoneSharesChanged(zonePK: 2)])
            #expect(try await heardByA.waitForNotices(2) == [.zoneSharesChanged(zonePK: 99), .zoneSharesChanged(zonePK: 2)])
            try await marker.close()
            try await writer.close()
            await a.shutDown()
            await b.shutDown()
        }
    }

    @Test func aLostListenerAnswersWaitersAtOnceAndComesBack() async throws {
        try await PostgresTestDatabase.with { database in
            let configuration = try database.url.connectionConfiguration()
            let bus = PostgresPushBus(configuration: configuration, logger: Self.logger, minimumBackoff: 0.05, maximumBackoff: 0.5)
            let hub = PushHub()
            let receiver = NoticeRecorder(hub: hub)
            await bus.start(receiver)
            let waiting = Task {
                await hub.poll(token: "phone", timeout: .seconds(60), ack: nil, user: "_alice", container: "c/development")
            }
            try await waitUntil("the phone's poll to wait") { await hub.isPolling(token: "phone") }

            let pid = try #require(try await bus.listenerBackendPID())
            let admin = try await PostgresConnection.connect(configuration: configuration, id: 2, logger: Self.logger)
            try await admin.query("SELECT pg_terminate_backend(\(pid))", logger: Self.logger)
            // Answered by the loss, not its 60 s timeout (which answers nothing): a push that names no subscription,
            // so the device fetches everything.
            let answer = try #require(await waiting.value)
            #expect(answer.ck.met == nil && answer.ck.qry == nil)

            // It listens again, on another backend, and what it missed meanwhile is covered by a second resync.
            let newPID = await firstValue(within: 20) { () async -> Int32? in
                guard let current = try? await bus.listenerBackendPID(), current != pid else { return nil }
                return current
            }
            #expect(newPID != nil)
            try await receiver.waitForLosses(2)
            try await admin.query("SELECT pg_notify(\(PostgresPushBus.channel), \("[{\"k\":\"shr\",\"p\":7}]"))", logger: Self.logger)
            #expect(try await receiver.waitForNotices(1) == [.zoneSharesChanged(zonePK: 7)])
            try await admin.close()
            await bus.shutDown()
        }
    }

    @Test func oneInstanceLeadsCompactionAndAnotherTakesOverWhenItStops() async throws {
        try await PostgresTestDatabase.with { database in
            let configuration = try database.url.connectionConfiguration()
            let (a, b) = (PostgresPushBus(configuration: configuration, logger: Self.logger), PostgresPushBus(configuration: configuration, logger: Self.logger))
            await a.start(NoticeRecorder())
            await b.start(NoticeRecorder())
            #expect(await a.leads(.compaction))
            #expect(await a.leads(.compaction))
            #expect(await !b.leads(.compaction))
            await a.shutDown()
            #expect(await eventually { await b.leads(.compaction) })
            await b.shutDown()
        }
    }

    @Test func aForeignPayloadOnTheChannelIsIgnored() async throws {
        try await PostgresTestDatabase.with { database in
            let configuration = try database.url.connectionConfiguration()
            let bus = PostgresPushBus(configuration: configuration, logger: Self.logger)
            let receiver = NoticeRecorder()
            await bus.start(receiver)
            let admin = try await PostgresConnection.connect(configuration: configuration, id: 3, logger: Self.logger)
            for junk in ["", "not json", "{\"k\":\"db\"}", "[{\"k\":\"zzz\"}]"] {
                try await admin.query("SELECT pg_notify(\(PostgresPushBus.channel), \(junk))", logger: Self.logger)
            }
            try await admin.query("SELECT pg_notify(\(PostgresPushBus.channel), \("[{\"k\":\"shr\",\"p\":9}]"))", logger: Self.logger)
            #expect(try await receiver.waitForNotices(1) == [.zoneSharesChanged(zonePK: 9)])
            try await admin.close()
            await bus.shutDown()
        }
    }
}

/// Sends notices on a plain connection inside whatever transaction the test opened.
struct RawTransaction: NoticeCarryingTransaction {
    let connection: PostgresConnection

    func sendNotice(channel: String, payload: String) async throws {
        try await connection.query("SELECT pg_notify(\(channel), \(payload))", logger: Logger(label: "cloudtodo.test.bus"))
    }
}

/// Keeps what a bus brings; with a hub, a loss resyncs it as the service does.
actor NoticeRecorder: NoticeReceiver {
    private(set) var notices: [ChangeNotice] = []
    private(set) var losses = 0
    let hub: PushHub?

    init(hub: PushHub? = nil) { self.hub = hub }

    func receive(_ notices: [ChangeNotice]) async { self.notices += notices }

    func noticesMayBeLost() async {
        losses += 1
        await hub?.resyncAll()
    }

    /// The first `count` notices, waiting up to `seconds` for them.
    func waitForNotices(_ count: Int, seconds: Double = 10) async throws -> [ChangeNotice] {
        _ = await eventually(seconds) { notices.count >= count }
        return Array(notices.prefix(count))
    }

    /// Waits up to `seconds` for `count` losses to be reported; fails the test if they are not.
    func waitForLosses(_ count: Int, seconds: Double = 10) async throws {
        #expect(await eventually(seconds) { losses >= count })
    }
}
