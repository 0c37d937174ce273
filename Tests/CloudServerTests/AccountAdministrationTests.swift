@testable import CloudServer
import CloudModel
import Foundation
import Logging
import PostgresTestSupport
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The operator's account tools, run on the data directory of a cloud that is running.
@Suite("Operator account tools")
struct AccountAdministrationTests {
    @Test func addListPasswdAndRemoveWhileTheCloudRuns() async throws {
        try await addListPasswdAndRemove(on: .sqlite)
    }

    @Test func addListPasswdAndRemoveWhileACloudOnPostgreSQLRuns() async throws {
        try await PostgresTestDatabase.with { database in try await addListPasswdAndRemove(on: .postgres(database.url)) }
    }

    /// The tools on a running cloud's storage (SQLite in its data directory, or its PostgreSQL database).
    private func addListPasswdAndRemove(on storage: CloudStorage) async throws {
        // Registration closed, as on any cloud the app did not start: accounts come from the operator.
        try await withCloud(openRegistration: false, storage: storage) { cloud async throws in
            let directory = cloud.directory
            let user = try await AccountAdministration.add(dataDirectory: directory, storage: storage, account: "olivia", password: "first password")
            let signedIn = try await cloud.attemptSignIn("olivia", password: "first password")
            #expect(signedIn.status == 200)
            let session = try JSONDecoder().decode(SignInResponse.self, from: signedIn.body)
            #expect(session.userRecordName == user)
            try await cloud.createTodosZone(Device(token: session.ckWebAuthToken, user: user, deviceID: session.deviceID))

            let listed = try await AccountAdministration.list(dataDirectory: directory, storage: storage)
            #expect(listed.map(\.account) == ["olivia"])
            #expect(listed.first?.signedInDevices == 1)
            #expect(listed.first?.lastUsed != nil)

            await #expect(throws: AccountAdministration.Failure.self) {
                try await AccountAdministration.add(dataDirectory: directory, storage: storage, account: "olivia", password: "another password")
            }
            await #expect(throws: AccountAdministration.Failure.self) {
                try await AccountAdministration.add(dataDirectory: directory, storage: storage, account: "bad name", password: "another password")
            }
            await #expect(throws: AccountAdministration.Failure.self) {
                try await AccountAdministration.add(dataDirectory: directory, storage: storage, account: "short", password: "short")
            }

            // passwd: the new password works, the old one and every session do not.
            try await AccountAdministration.setPassword(dataDirectory: directory, storage: storage, account: "olivia", password: "second password")
            // Another process ended the sessions: the cloud hears of it by its notice channel (PostgreSQL) or its next
            // read of the session (SQLite), within the session cache's lifetime at the latest.
            #expect(try await eventually(30) {
                try await cloud.raw("POST", cloud.address.databasePath(.private, "zones/list"), body: Data("{}".utf8), token: session.ckWebAuthToken).status == 401
            })
            #expect(try await cloud.attemptSignIn("olivia", password: "first password").status == 401)
            #expect(try await cloud.attemptSignIn("olivia", password: "second password").status == 200)
            await #expect(throws: AccountAdministration.Failure.self) {
                try await AccountAdministration.setPassword(dataDirectory: directory, storage: storage, account: "nobody", password: "second password")
            }

            // remove: the account and its data are gone; the name can be given again to a new, empty account.
            try await AccountAdministration.remove(dataDirectory: directory, storage: storage, account: "olivia")
            #expect(try await cloud.attemptSignIn("olivia", password: "second password").status == 401)
            #expect(try await AccountAdministration.list(dataDirectory: directory, storage: storage).isEmpty)
            let key = DatabaseKey(container: "\(cloud.address.container)/\(cloud.address.environment)", scope: .private, owner: user)
            let zones = try await OperatorStore.with(storage, dataDirectory: directory) { store in try await store.read { try await $0.zones(key) } }
            #expect(zones.isEmpty)
            await #expect(throws: AccountAdministration.Failure.self) {
                try await AccountAdministration.remove(dataDirectory: directory, storage: storage, account: "olivia")
            }
            _ = try await AccountAdministration.add(dataDirectory: directory, storage: storage, account: "olivia", password: "third password")
            #expect(try await cloud.attemptSignIn("olivia", password: "third password").status == 200)
        }
    }

    @Test func registrationIsClosedUnlessAskedFor() async throws {
        let configuration = ServerConfiguration(dataDirectory: FileManager.default.temporaryDirectory)
        #expect(!configuration.openRegistration)
        let directory = ScratchDirectory.path("closed")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await CloudServer.start(ServerConfiguration(port: 0, dataDirectory: directory, logLevel: .critical, passwordHashCost: 1))
        let body = try JSONEncoder().encode(CreateAccountRequest(account: "mallory", password: "password1"))
        let (status, data) = try await TestHTTPClient.send("POST", server.baseURL.absoluteString + ContainerAddress.default.authPath("accounts"), body: body)
        await server.shutdown()
        #expect(status == 403)
        #expect(try JSONDecoder().decode(ServerError.self, from: data).reason.contains("administrator"))
    }
}
