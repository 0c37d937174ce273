import CloudModel
@testable import CloudServer
import Foundation
import Testing

/// Values as web clients send them: assets without `"type"`, asset lists, `assets/rereference`, untyped values taking
/// the schema's type, and values CloudKit refuses. Bodies as the CloudKit Web Services Reference gives them.
@Suite("Web clients: assets and values")
struct WebValuesTests {
    /// Uploads `bytes` as CloudKit JS does (assets/upload, then POST to the URL); the `singleFile` JSON.
    private func upload(_ cloud: TestCloud, _ device: Device, _ bytes: Data, record: String, field: String) async throws -> String {
        let answer = try await cloud.web(
            cloud.address.databasePath(.private, "assets/upload"),
            #"{"tokens":[{"recordName":"\#(record)","recordType":"Note","fieldName":"\#(field)"}]}"#, token: device.token)
        let url = try #require(answer["tokens", 0, "url"] as? String, "\(answer.text)")
        let (status, body) = try await cloud.fetch(url, method: "POST", body: bytes)
        #expect(status == 200)
        let file = try #require((try JSONSerialization.jsonObject(with: body) as? [String: Any])?["singleFile"])
        return String(decoding: try JSONSerialization.data(withJSONObject: file, options: [.sortedKeys]), as: UTF8.self)
    }

    private func modify(_ cloud: TestCloud, _ device: Device, _ records: [String]) async throws -> WebAnswer {
        let operations = records.map { #"{"operationType":"create","record":\#($0)}"# }.joined(separator: ",")
        let answer = try await cloud.web(cloud.address.databasePath(.private, "records/modify"), #"{"operations":[\#(operations)]}"#, token: device.token)
        #expect(answer.status == 200, "\(answer.text)")
        return answer
    }

    @Test func untypedAssetsAssetListsAndRereferencedAssets() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            let first = Data("first file".utf8)
            let second = Data("second file".utf8)
            let one = try await upload(cloud, alice, first, record: "n1", field: "file")
            // Untyped, in a new field: an asset (the receipt redeemed, downloadURL back).
            var saved = try await modify(cloud, alice, [#"{"recordName":"n1","recordType":"Note","fields":{"file":{"value":\#(one)}}}"#])
            #expect(saved["records", 0, "fields", "file", "type"] as? String == "ASSETID", "\(saved.text)")
            let firstURL = try #require(saved["records", 0, "fields", "file", "value", "downloadURL"] as? String, "\(saved.text)")
            #expect(try await cloud.fetch(firstURL).body == first)
            // Untyped, in a field the schema types as an asset.
            let two = try await upload(cloud, alice, second, record: "n2", field: "file")
            saved = try await modify(cloud, alice, [#"{"recordName":"n2","recordType":"Note","fields":{"file":{"value":\#(two)}}}"#])
            #expect(saved["records", 0, "fields", "file", "type"] as? String == "ASSETID", "\(saved.text)")

            // ASSETID_LIST: each item redeemed.
            let three = try await upload(cloud, alice, first, record: "n3", field: "gallery")
            let four = try await upload(cloud, alice, second, record: "n3", field: "gallery")
            saved = try await modify(
                cloud, alice, [#"{"recordName":"n3","recordType":"Note","fields":{"gallery":{"type":"ASSETID_LIST","value":[\#(three),\#(four)]}}}"#])
            #expect(saved["records", 0, "fields", "gallery", "type"] as? String == "ASSETID_LIST", "\(saved.text)")
            let gallery = try #require(saved["records", 0, "fields", "gallery", "value"] as? [[String: Any]])
            #expect(gallery.count == 2)
            #expect(try await cloud.fetch(try #require(gallery[1]["downloadURL"] as? String)).body == second)

            // assets/rereference: a new receipt for n1's asset, saved in another record.
            let rereference = try await cloud.web(
                cloud.address.databasePath(.private, "assets/rereference"), #"{"assets":[{"recordName":"n1","fieldName":"file"},{"recordName":"nope","fieldName":"file"}]}"#,
                token: alice.token)
            #expect(rereference.status == 200, "\(rereference.text)")
            let receipt = try #require(rereference["assets", 0, "receipt"] as? String, "\(rereference.text)")
            #expect(rereference["assets", 0, "fieldName"] as? String == "file")
            #expect(rereference["assets", 1, "serverErrorCode"] as? String == "NOT_FOUND")
            let checksum = try #require(rereference["assets", 0, "fileChecksum"] as? String)
            saved = try await modify(
                cloud, alice,
                [#"{"recordName":"n4","recordType":"Note","fields":{"file":{"value":{"receipt":"\#(receipt)","fileChecksum":"\#(checksum)","size":\#(first.count)}}}}"#])
            let copyURL = try #require(saved["records", 0, "fields", "file", "value", "downloadURL"] as? String, "\(saved.text)")
            #expect(copyURL != firstURL)
            #expect(try await cloud.fetch(copyURL).body == first)
        }
    }

    @Test func untypedValuesTakeTheSchemaTypeAndOddValuesAreRefusedPerRecord() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            _ = try await modify(cloud, alice, [#"{"recordName":"p1","recordType":"Place","fields":{"where":{"type":"LOCATION","value":{"latitude":1.5,"longitude":2.5}}}}"#])
            let answer = try await modify(
                cloud, alice,
                [
                    #"{"recordName":"p2","recordType":"Place","fields":{"where":{"value":{"latitude":3,"longitude":4.5}}}}"#,
                    #"{"recordName":"p3","recordType":"Place","fields":{"mixed":{"value":["a",1]}}}"#,
                    #"{"recordName":"p4","recordType":"Place","fields":{"holes":{"value":["a",null]}}}"#,
                    #"{"recordName":"p5","recordType":"Place","fields":{"odd":{"value":{"weird":true}}}}"#,
                    #"{"recordName":"p6","recordType":"Place","fields":{"where":{"value":{"weird":true}}}}"#,
                ])
            #expect(answer["records", 0, "fields", "where", "type"] as? String == "LOCATION", "\(answer.text)")
            #expect(answer["records", 0, "fields", "where", "value", "longitude"] as? Double == 4.5)
            for (index, words) in [(1, "one CloudKit type"), (2, "null"), (3, "no CloudKit value"), (4, "no CloudKit value")] {
                #expect(answer["records", index, "serverErrorCode"] as? String == "BAD_REQUEST", "\(answer.text)")
                #expect((answer["records", index, "reason"] as? String)?.contains(words) == true, "\(answer.text)")
            }
            let lookup = try await cloud.web(cloud.address.databasePath(.private, "records/lookup"), #"{"records":[{"recordName":"p2"}]}"#, token: alice.token)
            #expect(lookup["records", 0, "fields", "where", "type"] as? String == "LOCATION", "\(lookup.text)")
        }
    }
}
