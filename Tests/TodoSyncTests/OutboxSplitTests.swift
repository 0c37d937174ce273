import CloudModel
import Foundation
import TLSTestSupport
import TestSupport
import Testing
import TodoStore
import TodoSync

/// A whole `records/modify` request refused for its size by what stands in front of the cloud (nginx with a smaller
/// `client_max_body_size` than the cloud's): the outbox splits the batch, sets aside the one record that cannot pass,
/// naming it, and sends every other.
@Suite("Splitting a batch refused whole, through nginx and the real cloud", .serialized)
struct OutboxSplitTests {
    @Test func aBatchRefusedWholeIsSplitAndOnlyTheRecordThatCannotPassIsSetAside() async throws {
        guard NginxProxy.isAvailable else { return }
        let cloud = try await TestCloud.start()
        defer { Task { await cloud.shutdown() } }
        let scratch = ScratchDirectory.make("split")
        let port = try NginxProxy.freePort()
        let site = """
            server {
                listen 127.0.0.1:\(port);
                client_max_body_size 256k;
                location / {
                    proxy_pass http://127.0.0.1:\(cloud.baseURL.port ?? 0);
                    proxy_http_version 1.1;
                    proxy_set_header Host $host;
                }
            }
            """
        let nginx = try await NginxProxy(site: site, port: port, directory: scratch.appendingPathComponent("nginx"))
        defer { Task { await nginx.stop() } }
        let proxied = try #require(URL(string: "http://127.0.0.1:\(port)"))

        let a = try await cloud.device("A", sendsAutomatically: false, through: proxied)
        let b = try await cloud.device("B", sendsAutomatically: false)
        await a.engine.sync(.manualRefresh)
        for index in 0..<40 { _ = try await a.engine.add(title: "small \(index)") }
        // Under the cloud's limits (1 MB a record, 16 MB a request), so the device sends it; over nginx's 256 KB.
        let bulky = try await a.engine.add(title: "Bulky notes", notes: String(repeating: "z", count: 400 * 1024))
        for index in 40..<80 { _ = try await a.engine.add(title: "small \(index)") }

        await a.engine.sync(.localEdit)
        let refused = try await a.store.pendingChanges(includeFailed: true)
        #expect(refused.map(\.key) == [bulky.key], "only the bulky todo stays: \(refused.map(\.key.recordName))")
        #expect(try await a.store.failedCount() == 1, "it is set aside, not retried with the others")
        let lastError = await a.engine.status().lastError ?? ""
        #expect(lastError.contains("'Bulky notes'"), "the message names the todo: \(lastError)")

        await b.engine.sync(.manualRefresh)
        let titles = try await b.titles()
        #expect(titles.count == 80 && titles.allSatisfy { $0.hasPrefix("small ") }, "\(titles.count) reached the other device")
    }
}
