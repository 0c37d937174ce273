import CloudClient
import CloudModel
import Foundation
import Testing
import TodoStore
import TodoSync

@Suite("Device sessions: accounts, credentials, files", .serialized) struct DeviceSessionTests {
    func mode(_ url: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test func firstUseCreatesTheAccountKeepsSecretsPrivateAndReopens() async throws {
        let cloud = try await TestCloud.start()
        let data = temporaryDirectory("session")
        defer { try? FileManager.default.removeItem(at: data) }
        let options = DeviceOptions(
            account: "carol", device: "laptop", server: cloud.baseURL, dataDirectory: data, startsLocalServer: false,
            environment: ["HOME": data.path])
        let session = try await DeviceSession.open(options)
        let credentials = try #require(session.credentials)
        #expect(try mode(options.credentialsFile) == 0o600)
        #expect(try mode(options.passwordFile) == 0o600)
        #expect(options.cacheFile.path.hasPrefix(data.path))
        await session.engine.start(listenForPushes: false)
        try await session.engine.add(title: "from the laptop")
        await session.engine.waitUntilIdle()
        await session.close()

        // A second device of the same account on this machine signs in with the kept password.
        var phone = options
        phone.device = "phone"
        let second = try await DeviceSession.open(phone)
        #expect(second.credentials?.userRecordName == credentials.userRecordName)
        #expect(second.credentials?.deviceID != credentials.deviceID)
        await second.engine.start(listenForPushes: false)
        #expect(try await second.store.todos().map(\.title) == ["from the laptop"])

        // Signing out sticks until signing in again.
        try await second.signOut()
        #expect(await second.engine.snapshot().connection == .signedOut)
        await second.close()
        let reopened = try await DeviceSession.open(phone)
        #expect(reopened.credentials == nil)
        await reopened.engine.start(listenForPushes: false)
        #expect(await reopened.engine.snapshot().connection == .signedOut)
        await reopened.close()
        try await DeviceSession.signInAgain(phone)
        let back = try await DeviceSession.open(phone)
        #expect(back.credentials != nil)
        await back.close()

        // The kept session is reused while it works.
        let again = try await DeviceSession.open(options)
        #expect(again.credentials?.ckWebAuthToken == credentials.ckWebAuthToken)
        await again.close()
        await cloud.shutdown()
    }

    @Test func wrongPasswordIsSaidClearly() async throws {
        let cloud = try await TestCloud.start()
        let data = temporaryDirectory("session")
        defer { try? FileManager.default.removeItem(at: data) }
        _ = try await cloud.anonymousClient().createAccount(account: "dave", password: "correct-horse")
        let options = DeviceOptions(
            account: "dave", server: cloud.baseURL, dataDirectory: data, password: "wrong-password", startsLocalServer: false,
            environment: [:])
        await #expect(throws: DeviceSessionError.self) { try await DeviceSession.open(options) }
        await cloud.shutdown()
    }

    @Test func unreachableCloudIsSaidClearly() async throws {
        let data = temporaryDirectory("session")
        defer { try? FileManager.default.removeItem(at: data) }
        let options = DeviceOptions(
            account: "erin", server: URL(string: "http://127.0.0.1:9")!, dataDirectory: data, password: "password-erin",
            startsLocalServer: false, environment: [:])
        await #expect(throws: DeviceSessionError.self) { try await DeviceSession.open(options) }
    }
}
