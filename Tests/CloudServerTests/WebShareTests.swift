import CloudModel
@testable import CloudServer
import Foundation
import Testing

/// Shares by the short GUIDs of their URLs, as CloudKit JS resolves and accepts them; a share made the device's way
/// (`shares/modify`) is the one resolved and accepted.
@Suite("Web clients: share links")
struct WebShareTests {
    @Test func resolveAndAcceptByShortGUIDThenSeeTheSharedRecords() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            let bob = try await cloud.signIn("bob")
            let carol = try await cloud.signIn("carol")
            try await cloud.createTodosZone(alice)
            let list = #"{"zoneID":{"zoneName":"Todos"},"operations":[{"operationType":"create","record":{"recordName":"L1","recordType":"TodoList","fields":{"title":{"value":"Groceries"}}}},{"operationType":"create","record":{"recordName":"T1","recordType":"Todo","parent":{"recordName":"L1"},"fields":{"title":{"value":"Milk"}}}}]}"#
            #expect(try await cloud.web(cloud.address.databasePath(.private, "records/modify"), list, token: alice.token).status == 200)
            let shared = try await cloud.web(
                cloud.address.databasePath(.private, "shares/modify"),
                #"{"operations":[{"operationType":"save","zoneID":{"zoneName":"Todos"},"rootRecordName":"L1","participants":[{"account":"bob","permission":"READ_WRITE"}]}]}"#,
                token: alice.token)
            let guid = try #require(shared["shares", 0, "shortGUID"] as? String, "\(shared.text)")

            let resolveBody = #"{"shortGUIDs":[{"value":"\#(guid)"},{"value":"0000"}]}"#
            let resolved = try await cloud.web(cloud.address.databasePath(.public, "records/resolve"), resolveBody, token: bob.token)
            print("records/resolve:", resolveBody, "->", resolved.text)
            #expect(resolved.status == 200, "\(resolved.text)")
            #expect(resolved["results", 0, "rootRecordName"] as? String == "L1")
            #expect(resolved["results", 0, "zoneID", "ownerRecordName"] as? String == alice.user)
            #expect(resolved["results", 0, "share", "currentUserParticipant", "acceptanceStatus"] as? String == "PENDING")
            #expect(resolved["results", 1, "serverErrorCode"] as? String == "NOT_FOUND")
            // Someone the share does not name learns nothing from the GUID.
            let stranger = try await cloud.web(cloud.address.databasePath(.public, "records/resolve"), resolveBody, token: carol.token)
            #expect(stranger["results", 0, "serverErrorCode"] as? String == "NOT_FOUND")

            let acceptBody = #"{"shortGUIDs":[{"value":"\#(guid)","shouldFetchRootRecord":true}]}"#
            let accepted = try await cloud.web(cloud.address.databasePath(.shared, "records/accept"), acceptBody, token: bob.token)
            print("records/accept:", acceptBody, "->", accepted.text)
            #expect(accepted.status == 200, "\(accepted.text)")
            #expect(accepted["results", 0, "share", "currentUserParticipant", "acceptanceStatus"] as? String == "ACCEPTED", "\(accepted.text)")
            #expect(try await cloud.web(cloud.address.databasePath(.shared, "records/accept"), acceptBody, token: carol.token)["results", 0, "serverErrorCode"] as? String == "NOT_FOUND")

            // The participant now sees the shared list and its records.
            let lookup = try await cloud.web(
                cloud.address.databasePath(.shared, "records/lookup"),
                #"{"zoneID":{"zoneName":"Todos","ownerRecordName":"\#(alice.user)"},"records":[{"recordName":"L1"},{"recordName":"T1"}]}"#, token: bob.token)
            #expect(lookup["records", 0, "fields", "title", "value"] as? String == "Groceries", "\(lookup.text)")
            #expect(lookup["records", 1, "fields", "title", "value"] as? String == "Milk", "\(lookup.text)")
            // The device's listing shows the same share.
            let listed = try await cloud.web(cloud.address.databasePath(.shared, "shares/list"), method: "GET", token: bob.token)
            #expect(listed["shares", 0, "shortGUID"] as? String == guid)
        }
    }

    @Test func aShareRecordSavedTheCloudKitJSWayIsTheDevicesShare() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            let bob = try await cloud.signIn("bob")
            try await cloud.createTodosZone(alice)
            let body = #"{"zoneID":{"zoneName":"Todos"},"operations":[{"operationType":"create","record":{"recordName":"L2","recordType":"TodoList","fields":{"title":{"value":"Trip"}},"share":{"recordName":"S2","zoneID":{"zoneName":"Todos"}}}},{"operationType":"create","record":{"recordName":"S2","recordType":"cloudkit.share","fields":{},"participants":[{"userIdentity":{"lookupInfo":{"emailAddress":"bob"}},"permission":"READ_WRITE"}]}}]}"#
            let saved = try await cloud.web(cloud.address.databasePath(.private, "records/modify"), body, token: alice.token)
            print("cloudkit.share save:", body, "->", saved.text)
            #expect(saved.status == 200, "\(saved.text)")
            #expect(saved["records", 0, "recordName"] as? String == "L2", "\(saved.text)")
            #expect(saved["records", 1, "recordType"] as? String == "cloudkit.share", "\(saved.text)")
            #expect(saved["records", 1, "rootRecordName"] as? String == "L2")
            // The share record keeps the name the client chose: a client matching its results by name finds it.
            #expect(saved["records", 1, "recordName"] as? String == "S2", "\(saved.text)")
            let guid = try #require(saved["records", 1, "shortGUID"] as? String)
            // The device's listing shows it; the participant accepts it by GUID and sees the list.
            let owned = try await cloud.web(cloud.address.databasePath(.private, "shares/list"), method: "GET", token: alice.token)
            #expect(owned["shares", 0, "shareRecordName"] as? String == "S2", "\(owned.text)")
            #expect(owned["shares", 0, "participants", 0, "account"] as? String == "bob")
            let record = try await cloud.web(
                cloud.address.databasePath(.private, "records/lookup"), #"{"zoneID":{"zoneName":"Todos"},"records":[{"recordName":"S2"}]}"#,
                token: alice.token)
            #expect(record["records", 0, "recordType"] as? String == "cloudkit.share", "\(record.text)")
            // One share to a root: a share record of another name for L2 is refused in words, saving S2 again is fine.
            let second = try await cloud.web(
                cloud.address.databasePath(.private, "records/modify"),
                #"{"zoneID":{"zoneName":"Todos"},"operations":[{"operationType":"create","record":{"recordName":"S3","recordType":"cloudkit.share","fields":{"rootRecord":{"value":{"recordName":"L2"}}},"participants":[]}}]}"#,
                token: alice.token)
            #expect(second["records", 0, "serverErrorCode"] as? String == "EXISTS", "\(second.text)")
            #expect((second["records", 0, "reason"] as? String)?.contains("'S2'") == true, "\(second.text)")
            let again = try await cloud.web(
                cloud.address.databasePath(.private, "records/modify"),
                #"{"zoneID":{"zoneName":"Todos"},"operations":[{"operationType":"update","record":{"recordName":"S2","recordType":"cloudkit.share","fields":{"rootRecord":{"value":{"recordName":"L2"}}},"participants":[{"userIdentity":{"lookupInfo":{"emailAddress":"bob"}},"permission":"READ_WRITE"}]}}]}"#,
                token: alice.token)
            #expect(again["records", 0, "recordName"] as? String == "S2", "\(again.text)")
            #expect(again["records", 0, "shortGUID"] as? String == guid, "\(again.text)")
            let accepted = try await cloud.web(cloud.address.databasePath(.shared, "records/accept"), #"{"shortGUIDs":[{"value":"\#(guid)"}]}"#, token: bob.token)
            #expect(accepted["results", 0, "share", "currentUserParticipant", "acceptanceStatus"] as? String == "ACCEPTED", "\(accepted.text)")
            let lookup = try await cloud.web(
                cloud.address.databasePath(.shared, "records/lookup"),
                #"{"zoneID":{"zoneName":"Todos","ownerRecordName":"\#(alice.user)"},"records":[{"recordName":"L2"}]}"#, token: bob.token)
            #expect(lookup["records", 0, "fields", "title", "value"] as? String == "Trip", "\(lookup.text)")
            // A body that only mentions the type in a value is an ordinary write.
            let plain = try await cloud.web(
                cloud.address.databasePath(.private, "records/modify"),
                #"{"zoneID":{"zoneName":"Todos"},"operations":[{"operationType":"create","record":{"recordName":"T9","recordType":"Todo","parent":{"recordName":"L2"},"fields":{"title":{"value":"\"cloudkit.share\""}}}}]}"#,
                token: alice.token)
            #expect(plain["records", 0, "recordName"] as? String == "T9", "\(plain.text)")
        }
    }
}
