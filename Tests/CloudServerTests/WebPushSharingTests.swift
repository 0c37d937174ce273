import CloudModel
@testable import CloudServer
import Foundation
import Testing

/// The owner's subscriptions fire for writes a participant makes through the shared database into a list the owner
/// shared, as CloudKit fires them: the zone's `fet`, the database's `met`, and each matching query's `qry`.
@Suite("Web clients: pushes of shared writes")
struct WebPushSharingTests {
    @Test func aParticipantsWritesFireTheOwnersSubscriptions() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice", device: "browser")
            let bob = try await cloud.signIn("bob")
            try await cloud.createTodosZone(alice)
            let modify = cloud.address.databasePath(.private, "records/modify")
            let list = #"{"zoneID":{"zoneName":"Todos"},"operations":[{"operationType":"create","record":{"recordName":"L1","recordType":"TodoList","fields":{"title":{"value":"Groceries"}}}}]}"#
            #expect(try await cloud.web(modify, list, token: alice.token).status == 200)
            let shared = try await cloud.web(
                cloud.address.databasePath(.private, "shares/modify"),
                #"{"operations":[{"operationType":"save","zoneID":{"zoneName":"Todos"},"rootRecordName":"L1","participants":[{"account":"bob","permission":"READ_WRITE"}]}]}"#,
                token: alice.token)
            let guid = try #require(shared["shares", 0, "shortGUID"] as? String, "\(shared.text)")
            let accepted = try await cloud.web(cloud.address.databasePath(.shared, "records/accept"), #"{"shortGUIDs":[{"value":"\#(guid)"}]}"#, token: bob.token)
            #expect(accepted.status == 200, "\(accepted.text)")

            let subscriptions = [
                #"{"subscriptionID":"todos-zone","subscriptionType":"zone","zoneID":{"zoneName":"Todos"}}"#,
                #"{"subscriptionID":"everything","subscriptionType":"database"}"#,
                #"{"subscriptionID":"all-todos","subscriptionType":"query","zoneID":{"zoneName":"Todos"},"query":{"recordType":"Todo"}}"#,
                #"{"subscriptionID":"lists","subscriptionType":"query","query":{"recordType":"TodoList"}}"#,
            ].map { #"{"operationType":"create","subscription":\#($0)}"# }.joined(separator: ",")
            let saved = try await cloud.web(cloud.address.databasePath(.private, "subscriptions/modify"), #"{"operations":[\#(subscriptions)]}"#, token: alice.token)
            #expect((saved["subscriptions"] as? [[String: Any]])?.allSatisfy { $0["serverErrorCode"] == nil } == true, "\(saved.text)")
            let courier = try await cloud.createWebToken(alice)
            try await cloud.listen(courier)

            // Bob creates, updates and deletes a todo in Alice's list through his shared database.
            let sharedModify = cloud.address.databasePath(.shared, "records/modify")
            let zone = #"{"zoneName":"Todos","ownerRecordName":"\#(alice.user)"}"#
            func write(_ operation: String, _ title: String) async throws {
                let body = #"{"zoneID":\#(zone),"operations":[{"operationType":"\#(operation)","record":{"recordName":"T1","recordType":"Todo","parent":{"recordName":"L1"},"fields":{"title":{"value":"\#(title)"}}}}]}"#
                let answer = try await cloud.web(sharedModify, body, token: bob.token)
                #expect(answer.status == 200 && answer["records", 0, "serverErrorCode"] == nil, "\(answer.text)")
            }
            func expectPushes(_ reason: Int, ack: String?) async throws -> String? {
                let (pushes, next) = try await cloud.drain(courier, count: 3, ack: ack)
                print("owner's push (shared write, fo \(reason)):", pushes.map(\.text).joined(separator: "\n"))
                let fet = pushes.filter { $0["ck", "fet"] != nil && $0["ck", "met"] == nil }
                #expect(fet.first?["ck", "fet", "sid"] as? String == "todos-zone")
                #expect(fet.first?["ck", "fet", "zoid"] as? String == alice.user)
                #expect(pushes.contains { $0["ck", "met", "sid"] as? String == "everything" && $0["ck", "fet", "zid"] as? String == "Todos" })
                let qry = pushes.filter { $0["ck", "qry"] != nil }
                #expect(qry.count == 1)
                #expect(qry.first?["ck", "qry", "sid"] as? String == "all-todos")
                #expect(qry.first?["ck", "qry", "rid"] as? String == "T1")
                #expect(qry.first?["ck", "qry", "fo"] as? Int == reason)
                #expect(qry.first?["ck", "qry", "dbs"] as? Int == 1)
                #expect(qry.first?["ck", "qry", "zoid"] as? String == alice.user)
                #expect(try await cloud.pollWeb(courier, timeout: 0.3, ack: next) == nil)
                return next
            }
            try await write("create", "Milk")
            var ack = try await expectPushes(1, ack: nil)
            try await write("forceUpdate", "Oat milk")
            ack = try await expectPushes(2, ack: ack)
            let delete = #"{"zoneID":\#(zone),"operations":[{"operationType":"forceDelete","record":{"recordName":"T1"}}]}"#
            let deleted = try await cloud.web(sharedModify, delete, token: bob.token)
            #expect(deleted.status == 200 && deleted["records", 0, "serverErrorCode"] == nil, "\(deleted.text)")
            _ = try await expectPushes(3, ack: ack)
        }
    }
}
