import CloudModel
import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `users/discover` and assets, in the reference's shapes.
@Suite("users/discover and assets")
struct AssetsAndDiscoveryTests {
    private func json(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func discoverFindsOnlyUsersWhoAllowedIt() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            let bob = try await cloud.signIn("bob")
            let path = cloud.address.databasePath(.public, "users/discover")
            let ask = Data(#"{"lookupInfos":[{"accountName":"bob"},{"emailAddress":"alice"},{"userRecordName":"\#(bob.user)"},{"accountName":"nobody"}]}"#.utf8)
            let before = try json(try await cloud.raw("POST", path, body: ask, token: alice.token).body)
            #expect((before["users"] as? [Any])?.isEmpty == true)

            let allow = try await cloud.raw(
                "POST", cloud.address.databasePath(.public, "users/discoverability"), body: Data(#"{"discoverable":true}"#.utf8), token: bob.token)
            #expect(allow.status == 200)
            let after = try json(try await cloud.raw("POST", path, body: ask, token: alice.token).body)
            let users = try #require(after["users"] as? [[String: Any]])
            #expect(users.count == 2)
            #expect(users.allSatisfy { $0["userRecordName"] as? String == bob.user })
            #expect((users[0]["lookupInfo"] as? [String: Any])?["accountName"] as? String == "bob")

            _ = try await cloud.raw(
                "POST", cloud.address.databasePath(.public, "users/discoverability"), body: Data(#"{"discoverable":false}"#.utf8), token: bob.token)
            let withdrawn = try json(try await cloud.raw("POST", path, body: ask, token: alice.token).body)
            #expect((withdrawn["users"] as? [Any])?.isEmpty == true)
            let refused = try await cloud.raw(
                "POST", cloud.address.databasePath(.public, "users/discoverability"), body: Data(#"{"discoverable":true}"#.utf8))
            #expect(refused.status == 421)
        }
    }

    @Test func uploadThenSaveThenDownload() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            let bob = try await cloud.signIn("bob")
            try await cloud.createTodosZone(alice)
            let upload = try await cloud.raw(
                "POST", cloud.address.databasePath(.private, "assets/upload"),
                body: Data(#"{"zoneID":{"zoneName":"Todos"},"tokens":[{"recordName":"withPhoto","recordType":"Todo","fieldName":"photo"}]}"#.utf8),
                token: alice.token)
            #expect(upload.status == 200)
            let token = try #require((try json(upload.body)["tokens"] as? [[String: Any]])?.first)
            #expect(token["fieldName"] as? String == "photo")
            let url = try #require((token["url"] as? String).flatMap(URL.init(string:)))

            let bytes = Data((0..<5000).map { UInt8($0 % 251) })
            let (status, answer) = try await TestHTTPClient.send("POST", url.absoluteString, body: bytes)
            #expect(status == 200)
            let file = try #require(try json(answer)["singleFile"] as? [String: Any])
            #expect(file["size"] as? Int == 5000)
            let receipt = try #require(file["receipt"] as? String)
            let checksum = try #require(file["fileChecksum"] as? String)
            // An upload URL is used once.
            #expect(try await TestHTTPClient.send("POST", url.absoluteString, body: bytes).status == 404)

            // Bob cannot put Alice's upload in his record.
            let bobZone = try await cloud.raw(
                "POST", cloud.address.databasePath(.public, "records/modify"),
                body: Data(#"{"operations":[{"operationType":"create","record":{"recordName":"stolen","recordType":"Todo","fields":{"photo":{"type":"ASSETID","value":{"receipt":"\#(receipt)","fileChecksum":"\#(checksum)","size":5000}}}}}]}"#.utf8),
                token: bob.token)
            #expect((try json(bobZone.body)["records"] as? [[String: Any]])?.first?["serverErrorCode"] as? String == "BAD_REQUEST")

            let saved = try await cloud.raw(
                "POST", cloud.address.databasePath(.private, "records/modify"),
                body: Data(#"{"zoneID":{"zoneName":"Todos"},"operations":[{"operationType":"create","record":{"recordName":"withPhoto","recordType":"Todo","fields":{"title":{"value":"T"},"photo":{"type":"ASSETID","value":{"receipt":"\#(receipt)","fileChecksum":"\#(checksum)","size":5000}}}}}]}"#.utf8),
                token: alice.token)
            let record = try #require((try json(saved.body)["records"] as? [[String: Any]])?.first)
            let photo = try #require((record["fields"] as? [String: Any])?["photo"] as? [String: Any])
            #expect(photo["type"] as? String == "ASSETID")
            let value = try #require(photo["value"] as? [String: Any])
            #expect(value["fileChecksum"] as? String == checksum)
            #expect(value["size"] as? Int == 5000)
            let download = try #require((value["downloadURL"] as? String).flatMap(URL.init(string:)))
            let (downloadStatus, downloaded) = try await TestHTTPClient.send("GET", download.absoluteString)
            #expect(downloadStatus == 200)
            #expect(downloaded == bytes)

            // A fetched record sent back as it came keeps its asset; a forged checksum is refused.
            let echoed = try await cloud.raw(
                "POST", cloud.address.databasePath(.private, "records/modify"),
                body: Data(#"{"zoneID":{"zoneName":"Todos"},"operations":[{"operationType":"forceUpdate","record":{"recordName":"withPhoto","recordType":"Todo","fields":{"photo":{"type":"ASSETID","value":{"downloadURL":"\#(download.absoluteString)","fileChecksum":"\#(checksum)","size":5000}}}}},{"operationType":"forceUpdate","record":{"recordName":"withPhoto","recordType":"Todo","fields":{"photo":{"type":"ASSETID","value":{"receipt":"\#(receipt)","fileChecksum":"AAAA","size":5000}}}}}],"atomic":false}"#.utf8),
                token: alice.token)
            let results = try #require(try json(echoed.body)["records"] as? [[String: Any]])
            #expect(results[0]["serverErrorCode"] == nil)
            #expect(results[1]["serverErrorCode"] as? String == "BAD_REQUEST")
        }
    }

    @Test func hostileUploadsAreBounded() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            // Upload URLs that were never handed out, or are not even ours in shape.
            for tail in [String(repeating: "a", count: 64), "../../cloud.sqlite", String(repeating: "Z", count: 64)] {
                let (status, _) = try await cloud.raw("POST", "/assets/1/\(cloud.address.container)/\(cloud.address.environment)/upload/\(tail)", body: Data("x".utf8))
                #expect(status == 404 || status == 400, "\(tail)")
            }
            let (noDownload, _) = try await cloud.raw("GET", "/assets/1/\(cloud.address.container)/\(cloud.address.environment)/download/\(String(repeating: "b", count: 64))")
            #expect(noDownload == 404)
            // No account, no upload URL; too many tokens refused.
            let (anonymous, _) = try await cloud.raw(
                "POST", cloud.address.databasePath(.public, "assets/upload"), body: Data(#"{"tokens":[{"recordName":"r","fieldName":"f"}]}"#.utf8))
            #expect(anonymous == 421)
            let many = (0..<201).map { _ in #"{"recordName":"r","fieldName":"f"}"# }.joined(separator: ",")
            let (tooMany, _) = try await cloud.raw(
                "POST", cloud.address.databasePath(.public, "assets/upload"), body: Data(#"{"tokens":[\#(many)]}"#.utf8), token: alice.token)
            #expect(tooMany == 400)
            // A receipt that was never issued cannot be saved.
            let forged = try await cloud.raw(
                "POST", cloud.address.databasePath(.public, "records/modify"),
                body: Data(#"{"operations":[{"operationType":"create","record":{"recordName":"x","recordType":"Todo","fields":{"photo":{"type":"ASSETID","value":{"receipt":"\#(String(repeating: "c", count: 64))"}}}}}]}"#.utf8),
                token: alice.token)
            #expect((try json(forged.body)["records"] as? [[String: Any]])?.first?["serverErrorCode"] as? String == "BAD_REQUEST")
        }
    }

    @Test func anAssetOverTheLimitIsRefused() async throws {
        let directory = ScratchDirectory.path("assets")
        let cloud = try await TestCloud(directory: directory, maxAssetBytes: 1000)
        do {
            let alice = try await cloud.signIn("alice")
            let upload = try await cloud.raw(
                "POST", cloud.address.databasePath(.public, "assets/upload"),
                body: Data(#"{"tokens":[{"recordName":"r","recordType":"Todo","fieldName":"f"}]}"#.utf8), token: alice.token)
            let url = try #require(((try json(upload.body)["tokens"] as? [[String: Any]])?.first?["url"] as? String).flatMap(URL.init(string:)))
            let (status, body) = try await TestHTTPClient.send("POST", url.absoluteString, body: Data(count: 1001))
            #expect(status == 400)
            #expect(try json(body)["condition"] as? String == "LIMIT_EXCEEDED")
            #expect(try await TestHTTPClient.send("POST", url.absoluteString, body: Data(count: 1000)).status == 200)
        } catch {
            await cloud.close()
            throw error
        }
        await cloud.close()
    }
}
