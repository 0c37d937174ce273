import CloudModel
import CloudServer
import Foundation
import TLSTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The real `todo server` process killed with SIGKILL while writes are in flight loses no acknowledged write.
@Suite("kill -9")
struct KillTests {
    @Test func acknowledgedWritesSurviveSIGKILL() async throws {
        let binary = try TodoBinary.path()
        let directory = ScratchDirectory.path("kill")
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = try NginxProxy.freePort()
        let base = "http://127.0.0.1:\(port)"
        var server = try spawn(binary, ["server", "--port", "\(port)", "--data-dir", directory.path, "--open-registration", "--log-level", "error"])
        try await waitHealthy(base)

        let address = ContainerAddress.default
        let password = "kill-test-password"
        _ = try await post(base + address.authPath("accounts"), CreateAccountRequest(account: "k", password: password), token: nil)
        let signedIn = try await post(base + address.authPath("signin"), SignInRequest(account: "k", password: password, deviceName: "d"), token: nil)
        let token = try JSONDecoder().decode(SignInResponse.self, from: signedIn.body).ckWebAuthToken
        _ = try await post(
            base + address.databasePath(.private, "zones/modify"), ModifyZonesRequest(operations: [.init(.create, ZoneID(zoneName: "Todos"))]),
            token: token)

        // Writers keep sending batches; the server is killed in the middle of it.
        let acknowledged = Acknowledged()
        let writers = (0..<2).map { writer in
            Task {
                for batch in 0..<1000 {
                    let names = (0..<50).map { "w\(writer)-b\(batch)-r\($0)" }
                    let request = ModifyRecordsRequest(
                        operations: names.map { RecordOperation(.create, Record(recordName: $0, recordType: "Todo", fields: ["title": .string($0)])) },
                        zoneID: ZoneID(zoneName: "Todos"))
                    guard let answer = try? await post(base + address.databasePath(.private, "records/modify"), request, token: token),
                        answer.status == 200
                    else { return }
                    acknowledged.add(names)
                }
            }
        }
        // Killed in the middle of the writes: once some have been acknowledged and others are on their way.
        #expect(await eventually(60) { acknowledged.names.count >= 1_000 }, "writes were acknowledged before the kill")
        kill(server, SIGKILL)
        var status: Int32 = 0
        waitpid(server, &status, 0)
        for writer in writers { await writer.value }
        let written = acknowledged.names
        #expect(written.count >= 50, "some writes were acknowledged before the kill")
        print("kill -9: \(written.count) acknowledged records to check after the restart")

        server = try spawn(binary, ["server", "--port", "\(port)", "--data-dir", directory.path, "--log-level", "error"])
        defer {
            kill(server, SIGTERM)
            waitpid(server, &status, 0)
        }
        try await waitHealthy(base)
        var missing: [String] = []
        for chunk in stride(from: 0, to: written.count, by: 200).map({ Array(written[$0..<min($0 + 200, written.count)]) }) {
            let answer = try await post(
                base + address.databasePath(.private, "records/lookup"), LookupRecordsRequest(recordNames: chunk, zoneID: ZoneID(zoneName: "Todos")),
                token: token)
            let results = try JSONDecoder().decode(RecordsResponse.self, from: answer.body).records
            for (name, result) in zip(chunk, results) where result.record == nil { missing.append(name) }
        }
        #expect(missing.isEmpty, "\(missing.count) acknowledged records lost, e.g. \(missing.prefix(3))")
    }

    private func spawn(_ binary: String, _ arguments: [String]) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        // Not the test runner's stderr: a cloud outliving a crashed test process would hold that pipe open and keep
        // `swift test` waiting for its end.
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([binary] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        InheritedDescriptors.closeInChild(&actions)
        guard posix_spawn(&pid, binary, &actions, nil, argv, environ) == 0 else { throw E2EError("cannot start \(binary)") }
        return pid
    }

    private func waitHealthy(_ base: String) async throws {
        let healthy = await eventually(30) {
            guard let (_, response) = try? await URLSession.shared.data(from: URL(string: base + "/health")!) else { return false }
            return (response as? HTTPURLResponse)?.statusCode == 200
        }
        guard healthy else { throw E2EError("the server did not come up") }
    }

    private func post<T: Encodable>(_ url: String, _ body: T, token: String?) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = "POST"
        request.httpBody = try JSONEncoder().encode(body)
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }
}

/// Record names the server acknowledged, from several writers.
final class Acknowledged: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    var names: [String] { lock.withLock { stored } }
    func add(_ names: [String]) { lock.withLock { stored += names } }
}
