import CloudModel
import Foundation
import Testing

@testable import CloudServer

@Suite("Change notices: the wire form of push across instances")
struct ChangeNoticeTests {
    private let alice = DatabaseKey(container: "iCloud.todo/development", scope: .private, owner: "_alice")

    @Test func everyKindSurvivesTheWire() throws {
        let notices: [ChangeNotice] = [
            .database(alice, zones: ["Todos", "Work"], writerDevice: "dev1"),
            .database(DatabaseKey(container: "c/production", scope: .shared, owner: "_bob"), zones: nil, writerDevice: nil),
            .publicRecords(
                container: "c/development", changes: [.init(recordName: "r1", zoneName: "_defaultZone", event: .update)], writerDevice: "d"),
            .devicePush(container: "c/development", user: "_alice", deviceID: "dev2"),
            .zoneSharesChanged(zonePK: 42),
            .throttle(.signInBegan(account: "alice", address: "192.0.2.1"), origin: "instance-a"),
            .throttle(.signInSucceeded(account: "alice", address: "::1"), origin: "instance-a"),
            .throttle(.registration(address: "192.0.2.9"), origin: "instance-b"),
            .sessionsEnded(.token(digest: "d1g3st")),
            .sessionsEnded(.device("dev3")),
            .sessionsEnded(.user("_alice")),
        ]
        let (payloads, dropped) = NoticePayload.pack(notices)
        #expect(dropped == 0)
        #expect(payloads.count == 1)
        #expect(payloads.flatMap { NoticePayload.unpack($0) ?? [] } == notices)
    }

    @Test func payloadsStayUnderPostgresLimitAndKeepEveryChange() throws {
        // 200 public changes with long names: far more than one NOTIFY takes.
        let changes = (0..<200).map {
            PublicRecordChange(recordName: String(repeating: "n", count: 200) + "\($0)", zoneName: "_defaultZone", event: .create)
        }
        let many = (0..<50).map { ChangeNotice.database(alice, zones: ["zone\($0)"], writerDevice: "d") }
        let (payloads, dropped) = NoticePayload.pack([.publicRecords(container: "c", changes: changes, writerDevice: "d")] + many)
        #expect(dropped == 0)
        #expect(payloads.count > 1)
        for payload in payloads { #expect(payload.utf8.count <= NoticePayload.limit) }
        let back = payloads.flatMap { NoticePayload.unpack($0) ?? [] }
        var received: [PublicRecordChange] = []
        var databases = 0
        for notice in back {
            switch notice {
            case .publicRecords(_, let part, _): received += part
            case .database: databases += 1
            default: Issue.record("unexpected \(notice)")
            }
        }
        #expect(received == changes)
        #expect(databases == 50)
    }

    @Test func aDatabaseNoticeTooLargeForOnePayloadNamesNoZonesInstead() throws {
        let zones = Set((0..<200).map { "zone-\($0)-" + String(repeating: "z", count: 100) })
        let (payloads, dropped) = NoticePayload.pack([.database(alice, zones: zones, writerDevice: "d")])
        #expect(dropped == 0)
        #expect(payloads.count == 1)
        // Coarser, never lost: every zone subscription of the database fires.
        #expect(NoticePayload.unpack(payloads[0]) == [.database(alice, zones: nil, writerDevice: "d")])
    }

    @Test func aNoticeThatCannotFitIsCountedNotSent() {
        let huge = ChangeNotice.devicePush(container: "c", user: String(repeating: "u", count: 9000), deviceID: "d")
        let (payloads, dropped) = NoticePayload.pack([huge, .zoneSharesChanged(zonePK: 1)])
        #expect(dropped == 1)
        #expect(payloads.flatMap { NoticePayload.unpack($0) ?? [] } == [.zoneSharesChanged(zonePK: 1)])
    }

    @Test func foreignPayloadsAreRefusedNotTrusted() {
        for payload in ["", "hello", "{}", "[{\"k\":\"db\"}]", "[{\"k\":\"nope\",\"c\":\"x\"}]", "[1,2]", String(repeating: "[", count: 5000),
            "[{\"k\":\"shr\",\"p\":\"not a number\"}]", "\u{0}"]
        {
            #expect(NoticePayload.unpack(payload) == nil, "\(payload.prefix(40))")
        }
        #expect(NoticePayload.unpack("[]") == [])
    }
}
