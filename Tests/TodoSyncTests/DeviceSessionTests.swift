import CloudClient
import CloudModel
import Foundation
import TestSupport
import Testing
import TodoStore
import TodoSync

@Suite("Device sessions: credentials, origins, files", .serialized) struct DeviceSessionTests {
    func mode(_ url: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    /// Options of `account` on `device` against `server`, recording every request that reaches the cloud.
    func options(
        _ account: String, device: String = "main", server: URL, data: URL, password: String? = nil
    ) -> (DeviceOptions, FaultInjectingTransport) {
        var options = DeviceOptions(
            account: account, device: device, server: server, dataDirectory: data, password: password, startsLocalServer: false,
            sendsAutomatically: false, environment: [:])
        let recorder = FaultInjectingTransport(wrapping: options.transport)
        options.transport = recorder
        return (options, recorder)
    }

    /// A device of `account` (password `ACCOUNT-password`, also in its options when `passwordInOptions`) signed in to a
    /// cloud of its own, in a scratch directory: `body` gets the cloud, the options, their request recorder and the
    /// kept session; the directory is removed after, and the cloud shut down.
    func withSignedInDevice(
        _ account: String, passwordInOptions: Bool = false,
        _ body: (TestCloud, DeviceOptions, FaultInjectingTransport, Credentials) async throws -> Void
    ) async throws {
        let cloud = try await TestCloud.start()
        let data = ScratchDirectory.make("session")
        defer { try? FileManager.default.removeItem(at: data) }
        let password = "\(account)-password"
        _ = try await cloud.anonymousClient().createAccount(account: account, password: password)
        let (options, recorder) = options(account, server: cloud.baseURL, data: data, password: passwordInOptions ? password : nil)
        let kept = try await DeviceSession.signIn(options, password: password)
        try await body(cloud, options, recorder, kept)
        await cloud.shutdown()
    }

    @Test func signsInWithTheGivenPasswordKeepsTheSessionPrivateAndReopensWithoutAsking() async throws {
        let cloud = try await TestCloud.start()
        let data = ScratchDirectory.make("session")
        defer { try? FileManager.default.removeItem(at: data) }
        _ = try await cloud.anonymousClient().createAccount(account: "carol", password: "carol-password")
        let (laptop, recorder) = options("carol", device: "laptop", server: cloud.baseURL, data: data, password: "carol-password")
        let session = try await DeviceSession.open(laptop)
        let credentials = try #require(session.credentials)
        #expect(try mode(laptop.credentialsFile) == 0o600)
        #expect(try mode(laptop.credentialsFile.deletingLastPathComponent()) == 0o700)
        #expect(laptop.cacheFile.path.hasPrefix(data.path))
        #expect(recorder.sentPaths.count == 1 && recorder.sentPaths[0].hasSuffix("signin"), "\(recorder.sentPaths)")
        await session.engine.loadFromStore()
        try await session.engine.add(title: "from the laptop")
        await session.engine.sync(.manualRefresh)
        #expect(await session.engine.status().pendingCount == 0)
        await session.close()

        // Reopened: the kept session is used as it is, without a request to check it.
        let before = recorder.sentPaths.count
        let again = try await DeviceSession.open(laptop)
        #expect(again.credentials?.ckWebAuthToken == credentials.ckWebAuthToken)
        #expect(recorder.sentPaths.count == before, "opening asked the cloud: \(recorder.sentPaths.dropFirst(before))")
        await again.close()

        // A second device of the same account signs in on its own.
        let (phone, _) = options("carol", device: "phone", server: cloud.baseURL, data: data, password: "carol-password")
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
        await reopened.close()
        try await DeviceSession.signInAgain(phone)
        let back = try await DeviceSession.open(phone)
        #expect(back.credentials != nil)
        await back.close()
        await cloud.shutdown()
    }

    @Test func aWrongPasswordOrAnUnknownAccountIsRefusedInWordsAndCreatesNothing() async throws {
        let cloud = try await TestCloud.start()
        let data = ScratchDirectory.make("session")
        defer { try? FileManager.default.removeItem(at: data) }
        _ = try await cloud.anonymousClient().createAccount(account: "dave", password: "correct-horse")

        let (wrong, _) = options("dave", server: cloud.baseURL, data: data, password: "wrong-password")
        let refused = await #expect(throws: SignInRefused.self) { try await DeviceSession.open(wrong) }
        #expect(refused?.description.contains("wrong password or no such account") == true)
        #expect(refused?.description.contains("no account was created") == true)
        #expect(!FileManager.default.fileExists(atPath: wrong.credentialsFile.path))

        // A typo in the account name is an error, never a new account: creating it afterwards still works.
        let (typo, _) = options("davee", server: cloud.baseURL, data: data, password: "correct-horse")
        await #expect(throws: SignInRefused.self) { try await DeviceSession.open(typo) }
        _ = try await cloud.anonymousClient().createAccount(account: "davee", password: "another-password")
        await cloud.shutdown()
    }

    @Test func withoutASessionOrAPasswordItSaysToLogIn() async throws {
        let cloud = try await TestCloud.start()
        let data = ScratchDirectory.make("session")
        defer { try? FileManager.default.removeItem(at: data) }
        let (options, recorder) = options("erin", server: cloud.baseURL, data: data)
        let error = await #expect(throws: DeviceSessionError.self) { try await DeviceSession.open(options) }
        #expect(error?.message.contains("todo login \(cloud.baseURL.absoluteString) --account erin") == true, "\(String(describing: error))")
        #expect(recorder.sentPaths.isEmpty)
        await cloud.shutdown()
    }

    @Test func unreachableCloudIsSaidClearly() async throws {
        let data = ScratchDirectory.make("session")
        defer { try? FileManager.default.removeItem(at: data) }
        let options = DeviceOptions(
            account: "erin", server: URL(string: "http://127.0.0.1:9")!, dataDirectory: data, password: "password-erin",
            startsLocalServer: false, environment: [:])
        let error = await #expect(throws: DeviceSessionError.self) { try await DeviceSession.open(options) }
        #expect(error?.message.contains("does not answer") == true)
    }

    @Test func theConfigurationDirectoryFollowsTheOptions() {
        var options = DeviceOptions(account: "a", environment: ["HOME": "/home/a"])
        #expect(options.resolvedConfigDirectory.path == "/home/a/.config/cloudtodo")
        options.environment["XDG_CONFIG_HOME"] = "/xdg"
        #expect(options.resolvedConfigDirectory.path == "/xdg/cloudtodo")
        options.dataDirectory = URL(fileURLWithPath: "/data")
        #expect(options.resolvedConfigDirectory.path == "/data/config")
        options.configDirectory = URL(fileURLWithPath: "/conf")
        #expect(options.resolvedConfigDirectory.path == "/conf")
        options.configDirectory = nil
        #expect(options.resolvedConfigDirectory.path == "/data/config")
    }

    @Test func originsAreCanonical() throws {
        func origin(_ text: String) -> String? { CloudOrigin(string: text)?.description }
        #expect(origin("HTTPS://Todo.Example.ORG/") == "https://todo.example.org:443")
        #expect(origin("https://todo.example.org:443/some/path?x=1") == "https://todo.example.org:443")
        #expect(origin("http://todo.example.org") == "http://todo.example.org:80")
        #expect(origin("http://[2001:DB8::1]:8787/") == "http://[2001:db8::1]:8787")
        #expect(origin("http://localhost:8787") == "http://localhost:8787")
        #expect(origin("http://127.0.0.1:8787/") == "http://localhost:8787")
        #expect(origin("http://[::1]:8787") == "http://localhost:8787")
        // Spaces and tabs around it (as a hand-edited file may hold) are not part of it; other characters are.
        #expect(origin(" \t\u{00A0}http://localhost:8787\u{3000} \t") == "http://localhost:8787")
        #expect(origin(" \t ") == nil && origin("\nhttp://localhost:8787") == nil)
        #expect(CloudOrigin(string: "http://127.0.0.1:8787") != CloudOrigin(string: "http://127.0.0.1:8788"))
        #expect(CloudOrigin(string: "http://todo.example.org") != CloudOrigin(string: "https://todo.example.org"))
        #expect(CloudOrigin(string: "http://todo.example.org:80") == CloudOrigin(string: "http://todo.example.org"))
        for hostile in ["ftp://example.org", "example.org", "http://", "http://:8787", "https://example.org:99999", "", "http://a b"] {
            #expect(CloudOrigin(string: hostile) == nil, "\(hostile)")
        }
        // File names of different origins differ; the same origin typed differently has one.
        #expect(CloudOrigin(string: "http://[::1]:80")?.fileKey == CloudOrigin(string: "http://localhost")?.fileKey)
        #expect(CloudOrigin(string: "https://a.example:8443")?.fileKey == "https-a.example-8443")
        #expect(CloudOrigin(string: "http://[fe80::1]:8787")?.fileKey == "http-fe80__1-8787")
    }

    @Test func localhostAnd127001OfOnePortAreOneCloud() async throws {
        let cloud = try await TestCloud.start()
        let data = ScratchDirectory.make("session")
        defer { try? FileManager.default.removeItem(at: data) }
        _ = try await cloud.anonymousClient().createAccount(account: "frank", password: "frank-password")
        let port = try #require(cloud.baseURL.port)
        let (typed, _) = options("frank", server: URL(string: "http://127.0.0.1:\(port)")!, data: data, password: "frank-password")
        let first = try await DeviceSession.open(typed)
        await first.close()

        // The same cloud spelled `localhost`, with no password: the kept session is found and works.
        let (spelled, recorder) = options("frank", server: URL(string: "http://LOCALHOST:\(port)/")!, data: data)
        #expect(spelled.credentialsFile == typed.credentialsFile)
        let second = try await DeviceSession.open(spelled)
        #expect(second.credentials?.ckWebAuthToken == first.credentials?.ckWebAuthToken)
        await second.engine.loadFromStore()
        try await second.engine.add(title: "one cloud")
        await second.engine.sync(.manualRefresh)
        let status = await second.engine.status()
        #expect(status.connection == .online && status.pendingCount == 0, "\(String(describing: status.lastError))")
        #expect(!recorder.sentPaths.contains { $0.hasSuffix("signin") })
        await second.close()
        await cloud.shutdown()
    }

    @Test func sessionsFiledUnderTheTypedAddressAreFoundAndMoved() async throws {
        let cloud = try await TestCloud.start()
        let data = ScratchDirectory.make("session")
        defer { try? FileManager.default.removeItem(at: data) }
        _ = try await cloud.anonymousClient().createAccount(account: "gina", password: "gina-password")
        let port = try #require(cloud.baseURL.port)
        let client = cloud.anonymousClient()
        let response = try await client.signIn(account: "gina", password: "gina-password", deviceName: "main")
        // Where the previous version kept it: sessions/<host as typed>-<port>/<account>/<device>.json.
        let legacy = data.appendingPathComponent("config/sessions/127.0.0.1-\(port)/gina/main.json")
        let kept = Credentials(
            server: "http://127.0.0.1:\(port)", account: "gina", deviceName: "main", userRecordName: response.userRecordName,
            deviceID: response.deviceID, ckWebAuthToken: response.ckWebAuthToken)
        try SecretFile.writeJSON(kept, to: legacy)

        let (options, recorder) = options("gina", server: URL(string: "http://localhost:\(port)")!, data: data)
        let session = try await DeviceSession.open(options)
        #expect(session.credentials == kept)
        #expect(recorder.sentPaths.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: legacy.path), "the old file is moved")
        #expect(try mode(options.credentialsFile) == 0o600)
        await session.close()

        // A session file of another cloud copied into this place is not taken for this one.
        var other = kept
        other.server = "http://127.0.0.1:\(port + 1)"
        try SecretFile.writeJSON(other, to: options.credentialsFile)
        #expect(DeviceSession.keptCredentials(options) == nil)
        await cloud.shutdown()
    }

    @Test func aRefusedTokenIsRenewedOnTheFirstRealRequestAndTheOutboxSent() async throws {
        try await withSignedInDevice("hana", passwordInOptions: true) { cloud, options, recorder, kept in
            // The cloud forgets the session (revoked elsewhere, or reset): only a real request can find out.
            try await CloudClient(baseURL: cloud.baseURL, authToken: kept.ckWebAuthToken).signOut()

            let renewals = LockedValue(0)
            let session = try await DeviceSession.open(options, credentials: kept, renewal: {
                renewals.withLock { $0 += 1 }
                return try await DeviceSession.signIn(options, password: "hana-password").ckWebAuthToken
            })
            let opened = recorder.sentPaths.count
            await session.engine.loadFromStore()
            try await session.engine.add(title: "written before the sign-in was renewed")
            await session.engine.sync(.manualRefresh)
            let status = await session.engine.status()
            #expect(renewals.withLock { $0 } == 1)
            #expect(status.connection == .online, "\(String(describing: status.lastError))")
            #expect(status.pendingCount == 0)
            let requests = recorder.sentPaths.dropFirst(opened)
            #expect(requests.first?.hasSuffix("users/caller") == true, "the first request is the pass's own: \(requests)")
            #expect(requests.filter { $0.hasSuffix("signin") }.count == 1)
            await session.close()

            // The renewed session is kept for the next run.
            #expect(DeviceSession.keptCredentials(options)?.ckWebAuthToken != kept.ckWebAuthToken)
        }
    }

    @Test func aRefusedTokenThatCannotBeRenewedSignsOutInWordsAndKeepsTheOutbox() async throws {
        try await withSignedInDevice("ivan") { cloud, options, _, kept in
            try await CloudClient(baseURL: cloud.baseURL, authToken: kept.ckWebAuthToken).signOut()

            let session = try await DeviceSession.open(options, credentials: kept, renewal: {
                throw DeviceSessionError("run todo login again")
            })
            await session.engine.loadFromStore()
            try await session.engine.add(title: "must not be lost")
            await session.engine.sync(.manualRefresh)
            let status = await session.engine.status()
            #expect(status.connection == .signedOut)
            #expect(status.lastError?.contains("run todo login again") == true, "\(String(describing: status.lastError))")
            #expect(status.pendingCount == 1)
            await session.close()

            // Signed in again, the waiting todo goes out.
            let renewed = try await DeviceSession.signIn(options, password: "ivan-password")
            let again = try await DeviceSession.open(options, credentials: renewed)
            await again.engine.loadFromStore()
            await again.engine.sync(.manualRefresh)
            #expect(await again.engine.status().pendingCount == 0)
            #expect(try await again.store.todos().map(\.title) == ["must not be lost"])
            await again.close()
        }
    }

    /// The session ended while another shell was still signing this device in (the cloud ends the old session before
    /// that shell has written the new one): once the new session file is there, the signed-out app takes it up by
    /// itself, at its next look at the cache, without a key; the file stays as that shell wrote it.
    @Test func aSessionEndedBeforeAnotherShellWroteItsOwnIsTakenUpOnceWritten() async throws {
        try await withSignedInDevice("jun") { cloud, options, _, kept in
            let session = try await DeviceSession.open(options, credentials: kept, renewal: { throw DeviceSessionError("run todo login again") })
            await session.engine.loadFromStore()

            // The cloud ends the session; the other shell has not written its own yet.
            try await CloudClient(baseURL: cloud.baseURL, authToken: kept.ckWebAuthToken).signOut()
            try await session.engine.add(title: "typed while signed out")
            await session.engine.sync(.manualRefresh)
            #expect(await session.engine.status().connection == .signedOut)
            await session.engine.checkCacheForOtherWriters()
            #expect(await session.engine.status().connection == .signedOut, "no session of its own on disk: still signed out")

            // The other shell's sign-in lands: the app's next look takes it up and what waited is sent.
            let fresh = try await DeviceSession.signIn(options, password: "jun-password")
            await session.engine.checkCacheForOtherWriters()
            let status = await session.engine.status()
            #expect(status.connection == .online, "\(String(describing: status.lastError))")
            #expect(!status.sessionEnded)
            await session.engine.sync(.manualRefresh)
            #expect(await session.engine.status().pendingCount == 0)
            #expect(DeviceSession.keptCredentials(options)?.ckWebAuthToken == fresh.ckWebAuthToken)
            await session.close()
        }
    }

    /// Signed out on purpose (not ended by the cloud), a session file is not taken up behind the user's back.
    @Test func signedOutOnPurposeStaysSignedOut() async throws {
        try await withSignedInDevice("kai") { _, options, _, kept in
            let session = try await DeviceSession.open(options, credentials: kept, renewal: { throw DeviceSessionError("run todo login again") })
            await session.engine.signedOut("signed out")
            _ = try await DeviceSession.signIn(options, password: "kai-password")
            await session.engine.checkCacheForOtherWriters()
            #expect(await session.engine.status().connection == .signedOut)
            await session.close()
        }
    }
}

/// Several processes of one device share its session file: a refused token never removes a fresh one.
@Suite("Device sessions: one file, several processes") struct SharedSessionFileTests {
    func keep(_ token: String, _ options: DeviceOptions) throws {
        try SecretFile.writeJSON(
            Credentials(
                server: options.server.absoluteString, account: options.account, deviceName: options.device, userRecordName: "_u",
                deviceID: "d", ckWebAuthToken: token), to: options.credentialsFile)
    }

    func options(_ data: URL) -> DeviceOptions {
        DeviceOptions(
            account: "alice", device: "laptop2", server: URL(string: "http://127.0.0.1:1")!, dataDirectory: data, startsLocalServer: false,
            environment: [:])
    }

    @Test func forgettingARefusedTokenLeavesAFreshSessionAlone() throws {
        let data = ScratchDirectory.make("shared-session")
        defer { try? FileManager.default.removeItem(at: data) }
        let laptop = options(data)
        try keep("fresh", laptop)
        DeviceSession.forgetSession(laptop, ifToken: "stale")
        #expect(DeviceSession.keptCredentials(laptop)?.ckWebAuthToken == "fresh")
        DeviceSession.forgetSession(laptop, ifToken: "fresh")
        #expect(DeviceSession.keptCredentials(laptop) == nil)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: laptop.credentialsFile.deletingLastPathComponent().path)
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    @Test func aRefusedTokenTakesUpTheSessionAnotherProcessWroteAndNeverRemovesIt() async throws {
        let data = ScratchDirectory.make("shared-session")
        defer { try? FileManager.default.removeItem(at: data) }
        let laptop = options(data)
        try keep("fresh", laptop)
        let client = CloudClient(baseURL: laptop.server, authToken: "stale")
        let renewal = DeviceSession.keepingFreshSessions(laptop, client: client) {
            throw DeviceSessionError("no password to sign in with")
        }
        #expect(try await renewal() == "fresh")
        #expect(DeviceSession.keptCredentials(laptop)?.ckWebAuthToken == "fresh")

        // The file holds the refused token itself: the failed renewal removes it.
        try keep("stale", laptop)
        await #expect(throws: DeviceSessionError.self) { try await renewal() }
        #expect(DeviceSession.keptCredentials(laptop) == nil)
    }
}
