import CloudModel
@testable import CloudServer
import Foundation
import Testing

/// Zone-wide shares made as CloudKit JS makes them: a `cloudkit.share` record named `cloudkit.zoneshare` saved in a
/// custom zone shares the whole zone, present and future records alike, with the participants it names; resolve and
/// accept work by its short GUID; deleting it (or dropping a participant) ends access; and a zone takes part in one
/// share only, so it is shared whole or record by record, never both.
@Suite("Web clients: zone-wide shares")
struct WebZoneShareTests {
    private struct People {
        var alice: Device
        var bob: Device
        var carol: Device
    }

    private func modify(_ cloud: TestCloud, _ scope: DatabaseScope, _ body: String, _ device: Device, show: String? = nil) async throws -> WebAnswer {
        let answer = try await cloud.web(cloud.address.databasePath(scope, "records/modify"), body, token: device.token)
        if let show { print("\(show):", body, "->", answer.text) }
        #expect(answer.status == 200, "\(answer.text)")
        return answer
    }

    /// Alice's Todos zone with a list, a todo in it and a record without parent, shared whole with Bob (read-write)
    /// and Carol (read-only); answers the share's short GUID.
    private func shareZone(_ cloud: TestCloud, _ people: People) async throws -> String {
        try await cloud.createTodosZone(people.alice)
        let records = #"{"zoneID":{"zoneName":"Todos"},"operations":[{"operationType":"create","record":{"recordName":"L1","recordType":"TodoList","fields":{"title":{"value":"Groceries"}}}},{"operationType":"create","record":{"recordName":"T1","recordType":"Todo","parent":{"recordName":"L1"},"fields":{"title":{"value":"Milk"}}}},{"operationType":"create","record":{"recordName":"N1","recordType":"Note","fields":{"text":{"value":"loose"}}}}]}"#
        _ = try await modify(cloud, .private, records, people.alice)
        let share = #"{"zoneID":{"zoneName":"Todos"},"operations":[{"operationType":"create","record":{"recordName":"cloudkit.zoneshare","recordType":"cloudkit.share","fields":{},"publicPermission":"NONE","participants":[{"userIdentity":{"lookupInfo":{"emailAddress":"bob"}},"permission":"READ_WRITE"},{"userIdentity":{"lookupInfo":{"userRecordName":"\#(people.carol.user)"}},"permission":"READ_ONLY"}]}}]}"#
        let saved = try await modify(cloud, .private, share, people.alice, show: "zone-wide share save (private/records/modify)")
        #expect(saved["records", 0, "serverErrorCode"] == nil, "\(saved.text)")
        #expect(saved["records", 0, "recordName"] as? String == "cloudkit.zoneshare")
        #expect(saved["records", 0, "recordType"] as? String == "cloudkit.share")
        #expect(saved["records", 0, "rootRecordName"] == nil, "a zone-wide share roots no record")
        #expect(saved["records", 0, "participants", 0, "permission"] as? String == "READ_WRITE")
        #expect(saved["records", 0, "participants", 1, "permission"] as? String == "READ_ONLY")
        return try #require(saved["records", 0, "shortGUID"] as? String)
    }

    private func people(_ cloud: TestCloud) async throws -> People {
        People(alice: try await cloud.signIn("alice"), bob: try await cloud.signIn("bob"), carol: try await cloud.signIn("carol"))
    }

    private func sharedZone(_ people: People) -> String { #"{"zoneName":"Todos","ownerRecordName":"\#(people.alice.user)"}"# }

    private func lookup(_ cloud: TestCloud, _ people: People, _ device: Device, _ names: [String]) async throws -> WebAnswer {
        let records = names.map { #"{"recordName":"\#($0)"}"# }.joined(separator: ",")
        return try await cloud.web(
            cloud.address.databasePath(.shared, "records/lookup"), #"{"zoneID":\#(sharedZone(people)),"records":[\#(records)]}"#, token: device.token)
    }

    @Test func aZoneWideShareSharesEveryRecordOfTheZoneWithItsParticipants() async throws {
        try await withCloud { cloud in
            let people = try await people(cloud)
            let guid = try await shareZone(cloud, people)
            let (bob, carol) = (people.bob, people.carol)

            let resolveBody = #"{"shortGUIDs":[{"value":"\#(guid)"}]}"#
            let resolved = try await cloud.web(cloud.address.databasePath(.public, "records/resolve"), resolveBody, token: bob.token)
            print("records/resolve:", resolveBody, "->", resolved.text)
            #expect(resolved["results", 0, "zoneID", "zoneName"] as? String == "Todos", "\(resolved.text)")
            #expect(resolved["results", 0, "rootRecordName"] == nil)
            #expect(resolved["results", 0, "share", "shareRecordName"] as? String == "cloudkit.zoneshare")
            #expect(resolved["results", 0, "share", "currentUserParticipant", "acceptanceStatus"] as? String == "PENDING")
            let accepted = try await cloud.web(cloud.address.databasePath(.shared, "records/accept"), resolveBody, token: bob.token)
            print("records/accept:", resolveBody, "->", accepted.text)
            #expect(accepted["results", 0, "share", "currentUserParticipant", "acceptanceStatus"] as? String == "ACCEPTED", "\(accepted.text)")
            #expect(try await cloud.web(cloud.address.databasePath(.shared, "records/accept"), resolveBody, token: carol.token).status == 200)

            // The participant's shared database: the zone, and every record in it whatever its parent.
            let zones = try await cloud.web(cloud.address.databasePath(.shared, "zones/list"), method: "GET", token: bob.token)
            print("shared zones/list:", zones.text)
            #expect(zones["zones", 0, "zoneID", "ownerRecordName"] as? String == people.alice.user, "\(zones.text)")
            let changesBody = #"{"zones":[{"zoneID":\#(sharedZone(people))}]}"#
            let changes = try await cloud.web(cloud.address.databasePath(.shared, "changes/zone"), changesBody, token: bob.token)
            print("shared changes/zone:", changesBody, "->", changes.text)
            let names = Set((changes["zones", 0, "records"] as? [[String: Any]] ?? []).compactMap { $0["recordName"] as? String })
            #expect(names == ["L1", "T1", "N1", "cloudkit.zoneshare"], "\(changes.text)")
            let token = try #require(changes["zones", 0, "syncToken"] as? String)
            let queried = try await cloud.web(
                cloud.address.databasePath(.shared, "records/query"), #"{"zoneID":\#(sharedZone(people)),"query":{"recordType":"Note"}}"#, token: carol.token)
            #expect(queried["records", 0, "recordName"] as? String == "N1", "\(queried.text)")

            // Read-write: anything but the share, with or without a parent; read-only: nothing.
            let zone = sharedZone(people)
            let written = try await modify(
                cloud, .shared,
                #"{"zoneID":\#(zone),"atomic":false,"operations":[{"operationType":"create","record":{"recordName":"N2","recordType":"Note","fields":{"text":{"value":"by bob"}}}},{"operationType":"forceUpdate","record":{"recordName":"N1","recordType":"Note","fields":{"text":{"value":"edited"}}}},{"operationType":"forceDelete","record":{"recordName":"cloudkit.zoneshare"}}]}"#,
                bob, show: "participant's writes (shared/records/modify)")
            #expect(written["records", 0, "serverErrorCode"] == nil && written["records", 1, "serverErrorCode"] == nil, "\(written.text)")
            #expect(written["records", 2, "serverErrorCode"] as? String == "ACCESS_DENIED", "\(written.text)")
            let refused = try await modify(
                cloud, .shared, #"{"zoneID":\#(zone),"operations":[{"operationType":"forceDelete","record":{"recordName":"N1"}}]}"#, carol)
            #expect(refused["records", 0, "serverErrorCode"] as? String == "ACCESS_DENIED", "\(refused.text)")

            // A future record of the owner's, under no list, reaches the participant.
            _ = try await modify(
                cloud, .private, #"{"zoneID":{"zoneName":"Todos"},"operations":[{"operationType":"create","record":{"recordName":"F1","recordType":"Note","fields":{}}}]}"#,
                people.alice)
            let later = try await cloud.web(
                cloud.address.databasePath(.shared, "changes/zone"), #"{"zones":[{"zoneID":\#(zone),"syncToken":"\#(token)"}]}"#, token: bob.token)
            let laterNames = Set((later["zones", 0, "records"] as? [[String: Any]] ?? []).compactMap { $0["recordName"] as? String })
            #expect(laterNames.isSuperset(of: ["F1", "N2", "N1"]), "\(later.text)")

            // One share per zone: none of its records can be shared on its own.
            let listShare = try await cloud.web(
                cloud.address.databasePath(.private, "shares/modify"),
                #"{"operations":[{"operationType":"save","zoneID":{"zoneName":"Todos"},"rootRecordName":"L1","participants":[{"account":"bob","permission":"READ_ONLY"}]}]}"#,
                token: people.alice.token)
            print("record share in a zone shared whole:", listShare.text)
            #expect(listShare["shares", 0, "serverErrorCode"] as? String == "BAD_REQUEST", "\(listShare.text)")
            #expect((listShare["shares", 0, "reason"] as? String)?.contains("one share only") == true)

            // Carol dropped from the share (saved again without her): her access ends; Bob's stays.
            _ = try await modify(
                cloud, .private,
                #"{"zoneID":{"zoneName":"Todos"},"operations":[{"operationType":"update","record":{"recordName":"cloudkit.zoneshare","recordType":"cloudkit.share","fields":{},"participants":[{"userIdentity":{"lookupInfo":{"emailAddress":"bob"}},"permission":"READ_WRITE"}]}}]}"#,
                people.alice)
            #expect(try await lookup(cloud, people, carol, ["N1"])["records", 0, "fields"] == nil)
            #expect(try await lookup(cloud, people, bob, ["N1"])["records", 0, "fields", "text", "value"] as? String == "edited")

            // The share record deleted, as CloudKit JS removes a share: nobody sees the zone any more.
            let removed = try await modify(
                cloud, .private, #"{"zoneID":{"zoneName":"Todos"},"operations":[{"operationType":"forceDelete","record":{"recordName":"cloudkit.zoneshare"}}]}"#,
                people.alice, show: "zone-wide share delete")
            #expect(removed["records", 0, "serverErrorCode"] == nil, "\(removed.text)")
            #expect(removed["records", 0, "deleted"] as? Bool == true, "\(removed.text)")
            #expect(try await lookup(cloud, people, bob, ["N1"])["records", 0, "fields"] == nil)
            let gone = try await cloud.web(cloud.address.databasePath(.shared, "zones/list"), method: "GET", token: bob.token)
            #expect((gone["zones"] as? [Any])?.isEmpty == true, "\(gone.text)")
            // The device's own sharing is back: a list of the zone can be shared again.
            let again = try await cloud.web(
                cloud.address.databasePath(.private, "shares/modify"),
                #"{"operations":[{"operationType":"save","zoneID":{"zoneName":"Todos"},"rootRecordName":"L1","participants":[{"account":"bob","permission":"READ_ONLY"}]}]}"#,
                token: people.alice.token)
            #expect(again["shares", 0, "shareRecordName"] as? String == "share-L1", "\(again.text)")
        }
    }

    @Test func aZoneWithSharedRecordsIsNotSharedWholeAndPublicSharesAreRefusedInWords() async throws {
        try await withCloud { cloud in
            let people = try await people(cloud)
            try await cloud.createTodosZone(people.alice)
            _ = try await modify(
                cloud, .private,
                #"{"zoneID":{"zoneName":"Todos"},"operations":[{"operationType":"create","record":{"recordName":"L1","recordType":"TodoList","fields":{}}}]}"#,
                people.alice)
            let listShare = try await cloud.web(
                cloud.address.databasePath(.private, "shares/modify"),
                #"{"operations":[{"operationType":"save","zoneID":{"zoneName":"Todos"},"rootRecordName":"L1","participants":[{"account":"bob","permission":"READ_ONLY"}]}]}"#,
                token: people.alice.token)
            #expect(listShare["shares", 0, "shareRecordName"] as? String == "share-L1", "\(listShare.text)")
            let zoneShare = #"{"zoneID":{"zoneName":"Todos"},"operations":[{"operationType":"create","record":{"recordName":"cloudkit.zoneshare","recordType":"cloudkit.share","fields":{},"participants":[{"userIdentity":{"lookupInfo":{"emailAddress":"carol"}},"permission":"READ_ONLY"}]}}]}"#
            let refused = try await modify(cloud, .private, zoneShare, people.alice, show: "zone-wide share of a zone with a record share")
            #expect(refused["records", 0, "serverErrorCode"] as? String == "BAD_REQUEST", "\(refused.text)")
            #expect((refused["records", 0, "reason"] as? String)?.contains("records in it are already shared") == true, "\(refused.text)")
            // Nothing of it was kept: the list's share is the zone's only one.
            let owned = try await cloud.web(cloud.address.databasePath(.private, "shares/list"), method: "GET", token: people.alice.token)
            #expect((owned["shares"] as? [[String: Any]])?.map { $0["shareRecordName"] as? String } == ["share-L1"], "\(owned.text)")
            // A share anyone with its URL could join is not one this cloud makes.
            let zone = try await cloud.web(
                cloud.address.databasePath(.private, "zones/modify"), #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Open"}}}]}"#,
                token: people.bob.token)
            #expect(zone.status == 200, "\(zone.text)")
            let open = #"{"zoneID":{"zoneName":"Open"},"operations":[{"operationType":"create","record":{"recordName":"cloudkit.zoneshare","recordType":"cloudkit.share","fields":{},"publicPermission":"READ_ONLY","participants":[]}}]}"#
            let publicRefused = try await modify(cloud, .private, open, people.bob)
            #expect(publicRefused["records", 0, "serverErrorCode"] as? String == "BAD_REQUEST", "\(publicRefused.text)")
            #expect((publicRefused["records", 0, "reason"] as? String)?.contains("publicPermission") == true, "\(publicRefused.text)")
        }
    }

    @Test func aParticipantsDatabaseSubscriptionFiresForWritesInTheSharedZone() async throws {
        try await withCloud { cloud in
            let people = try await people(cloud)
            let guid = try await shareZone(cloud, people)
            let accepted = try await cloud.web(cloud.address.databasePath(.shared, "records/accept"), #"{"shortGUIDs":[{"value":"\#(guid)"}]}"#, token: people.bob.token)
            #expect(accepted.status == 200, "\(accepted.text)")
            let subscription = #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"shared-everything","subscriptionType":"database"}}]}"#
            let saved = try await cloud.web(cloud.address.databasePath(.shared, "subscriptions/modify"), subscription, token: people.bob.token)
            #expect(saved["subscriptions", 0, "serverErrorCode"] == nil, "\(saved.text)")
            let courier = try await cloud.createWebToken(people.bob)
            try await cloud.listen(courier)

            // The owner writes a record under no list: the participant's database subscription fires.
            _ = try await modify(
                cloud, .private,
                #"{"zoneID":{"zoneName":"Todos"},"operations":[{"operationType":"create","record":{"recordName":"N3","recordType":"Note","fields":{}}}]}"#,
                people.alice)
            let (pushes, _) = try await cloud.drain(courier, count: 1)
            print("participant's push (owner's write in the shared zone):", pushes.map(\.text).joined(separator: "\n"))
            #expect(pushes.first?["ck", "met", "sid"] as? String == "shared-everything", "\(pushes.map(\.text))")
        }
    }
}
