import CloudModel
@testable import CloudServer
import Foundation
import Testing

/// The URLs a cloud started with `--api-token` hands out (courier, upload, download) work exactly as handed out: they
/// carry a signed grant, so a web client need not add `ckAPIToken`.
@Suite("Web clients: the URLs the cloud hands out")
struct WebURLTests {
    static let apiToken = "web-client-token"
    let query = "ckAPIToken=\(apiToken)"

    /// A signed-in device of a cloud that requires the API token.
    private func signIn(_ cloud: TestCloud, _ account: String) async throws -> Device {
        let password = "password-\(account)"
        _ = try await cloud.web(cloud.address.authPath("accounts"), #"{"account":"\#(account)","password":"\#(password)"}"#, query: query)
        let answer = try await cloud.web(
            cloud.address.authPath("signin"), #"{"account":"\#(account)","password":"\#(password)","deviceName":"browser"}"#, query: query)
        #expect(answer.status == 200, "\(answer.text)")
        return Device(
            token: try #require(answer["ckWebAuthToken"] as? String), user: try #require(answer["userRecordName"] as? String),
            deviceID: try #require(answer["deviceID"] as? String))
    }

    @Test func handedOutURLsWorkWithoutTheAPIToken() async throws {
        try await withCloud(configure: { $0.apiToken = Self.apiToken }) { cloud in
            let alice = try await signIn(cloud, "alice")
            // The courier URL: polled as handed out.
            let courier = try await cloud.createWebToken(alice, query: query)
            #expect(courier.contains("?grant="))
            #expect(try await cloud.pollWeb(courier, timeout: 0.1) == nil)
            // A forged or stripped grant is refused.
            let forged = String(courier.dropLast()) + (courier.hasSuffix("0") ? "1" : "0")
            #expect(try await cloud.fetch(forged, extra: "timeout=0.1").status == 401)
            let stripped = String(courier.prefix { $0 != "?" })
            #expect(try await cloud.fetch(stripped, extra: "timeout=0.1").status == 401)
            // A grant signs its own path only: another token's path with it is refused.
            let other = try await cloud.createWebToken(try await signIn(cloud, "bob"), query: query)
            let swapped = String(other.prefix { $0 != "?" }) + String(courier.drop { $0 != "?" })
            #expect(try await cloud.fetch(swapped, extra: "timeout=0.1").status == 401)
            // A grant is no API token: the database endpoints still want ckAPIToken.
            let grant = String(courier.drop { $0 != "?" }.dropFirst())
            let zones = try await cloud.web(cloud.address.databasePath(.private, "zones/list"), method: "GET", token: alice.token, query: grant)
            #expect(zones.status == 401)

            // The upload URL and the downloadURL: used as handed out.
            let upload = try await cloud.web(
                cloud.address.databasePath(.private, "assets/upload"),
                #"{"tokens":[{"recordName":"n1","recordType":"Note","fieldName":"file"}]}"#, token: alice.token, query: query)
            #expect(upload.status == 200, "\(upload.text)")
            let url = try #require(upload["tokens", 0, "url"] as? String)
            #expect(url.contains("?grant="))
            let bytes = Data("the file's bytes".utf8)
            let (status, body) = try await cloud.fetch(url, method: "POST", body: bytes)
            #expect(status == 200, "\(String(decoding: body, as: UTF8.self))")
            let single = try #require((try JSONSerialization.jsonObject(with: body) as? [String: Any])?["singleFile"] as? [String: Any])
            let receipt = try #require(single["receipt"] as? String)
            let checksum = try #require(single["fileChecksum"] as? String)
            let save = #"""
                {"operations":[{"operationType":"create","record":{"recordName":"n1","recordType":"Note","fields":{"file":{"type":"ASSETID","value":{"receipt":"\#(receipt)","fileChecksum":"\#(checksum)","size":\#(bytes.count)}}}}}]}
                """#
            let saved = try await cloud.web(cloud.address.databasePath(.private, "records/modify"), save, token: alice.token, query: query)
            #expect(saved.status == 200, "\(saved.text)")
            let download = try #require(saved["records", 0, "fields", "file", "value", "downloadURL"] as? String, "\(saved.text)")
            #expect(download.contains("?grant="))
            let fetched = try await cloud.fetch(download)
            #expect(fetched.status == 200)
            #expect(fetched.body == bytes)
            #expect(try await cloud.fetch(String(download.prefix { $0 != "?" })).status == 401)
            // A fetched value sent back unchanged keeps its asset (the grant is no part of the asset's name).
            let again = #"""
                {"operations":[{"operationType":"forceUpdate","record":{"recordName":"n1","recordType":"Note","fields":{"file":{"type":"ASSETID","value":{"downloadURL":"\#(download)","fileChecksum":"\#(checksum)","size":\#(bytes.count)}}}}}]}
                """#
            let resaved = try await cloud.web(cloud.address.databasePath(.private, "records/modify"), again, token: alice.token, query: query)
            #expect(resaved["records", 0, "fields", "file", "value", "downloadURL"] as? String == download, "\(resaved.text)")
        }
    }

    @Test func withoutAnAPITokenURLsCarryNoGrant() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            let courier = try await cloud.createWebToken(alice)
            #expect(!courier.contains("?"))
            #expect(try await cloud.pollWeb(courier, timeout: 0.1) == nil)
        }
    }
}
