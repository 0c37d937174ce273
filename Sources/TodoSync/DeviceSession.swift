import CloudClient
import CloudModel
import Foundation
import TodoStore

/// How to open a device: which account, which device, which cloud, where the data lives.
public struct DeviceOptions: Sendable {
    /// The cloud's default local address; when nothing answers there, a cloud is started in the background.
    public static let defaultServer = URL(string: "http://127.0.0.1:8787")!

    /// The account name (default `$USER`).
    public var account: String
    /// The device name (its own cache file).
    public var device: String
    /// The cloud's base URL.
    public var server: URL
    /// Where caches live (default `$XDG_DATA_HOME/cloudtodo`).
    public var dataDirectory: URL? { didSet { resolveConfigDirectory() } }
    /// Where credentials and generated passwords live (default `$XDG_CONFIG_HOME/cloudtodo`, or `<data-dir>/config`).
    public var configDirectory: URL? { didSet { resolveConfigDirectory() } }
    /// The password a sign-in uses (else `$TODO_PASSWORD`; on the embedded cloud, else the kept or a generated one).
    public var password: String?
    /// Whether the app's bootstrap starts `todo server --detach` when the default local cloud does not answer.
    public var startsLocalServer: Bool
    /// The executable the app's bootstrap runs as `server --detach` (default: this process's executable).
    public var executablePath: String?
    /// How requests reach the cloud.
    public var transport: any HTTPTransport
    /// The engine's configuration, less the names filled in from the sign-in.
    public var publicPollInterval: Double
    /// Whether local edits are sent at once in the background (the TUI); the command line sends explicitly.
    public var sendsAutomatically: Bool
    /// The environment to read `USER`, `TODO_PASSWORD` and the XDG variables from.
    public var environment: ProcessEnvironment { didSet { resolveConfigDirectory() } }
    /// A command that only reads the cache (`--offline`): no HTTP client is made ahead of a request (a signed-in
    /// session otherwise makes it while the cache opens), and the embedded cloud is neither asked nor started.
    public var readsCacheOnly = false

    /// Options with defaults from the environment.
    public init(
        account: String? = nil, device: String? = nil, server: URL? = nil, dataDirectory: URL? = nil, configDirectory: URL? = nil,
        password: String? = nil, startsLocalServer: Bool = true, executablePath: String? = nil,
        transport: any HTTPTransport = HTTPClientTransport(), publicPollInterval: Double = 300, sendsAutomatically: Bool = true,
        environment: ProcessEnvironment = .process
    ) {
        self.account = account ?? environment["USER"].flatMap { $0.isEmpty ? nil : $0 } ?? "me"
        self.device = device ?? "main"
        self.server = server ?? Self.defaultServer
        self.dataDirectory = dataDirectory
        self.configDirectory = configDirectory
        self.password = password
        self.startsLocalServer = startsLocalServer
        self.executablePath = executablePath
        self.transport = transport
        self.publicPollInterval = publicPollInterval
        self.sendsAutomatically = sendsAutomatically
        self.environment = environment
        resolvedConfigDirectory = Self.configDirectory(configDirectory, dataDirectory: dataDirectory, environment: environment)
    }

    /// The resolved data directory.
    public var resolvedDataDirectory: URL { CacheLocation.dataDirectory(override: dataDirectory, environment: environment) }

    /// The resolved configuration directory, worked out when the options change: Foundation's URL appending took
    /// 0.1 M instructions each time, and a list from the cache asked seven times (3.5 % of its instructions).
    public private(set) var resolvedConfigDirectory: URL

    /// Works `resolvedConfigDirectory` out again (an option it depends on changed).
    private mutating func resolveConfigDirectory() {
        resolvedConfigDirectory = Self.configDirectory(configDirectory, dataDirectory: dataDirectory, environment: environment)
    }

    /// `resolvedConfigDirectory` for these options.
    private static func configDirectory(_ configDirectory: URL?, dataDirectory: URL?, environment: ProcessEnvironment) -> URL {
        if let configDirectory { return configDirectory }
        if let dataDirectory { return dataDirectory.appendingFilePath("config") }
        return CacheLocation.xdgDirectory("XDG_CONFIG_HOME", else: ".config/cloudtodo", environment: environment)
    }

    /// The cache file of this account on this device.
    public var cacheFile: URL { CacheLocation.cacheFile(account: account, device: device, dataDirectory: resolvedDataDirectory) }

    /// The cloud's canonical origin, under which sessions are filed (nil for an address that is no http(s) URL).
    public var origin: CloudOrigin? { CloudOrigin(server) }

    /// The directory name sessions of this cloud are filed under: its canonical origin.
    var originKey: String { CacheLocation.safeName(origin?.fileKey ?? "cloud-\(server.absoluteString)") }

    /// The session file (0600) of this account on this device.
    public var credentialsFile: URL { credentialsFile(originKey: originKey) }

    /// The session file of this account and device under a cloud's directory name.
    func credentialsFile(originKey: String) -> URL { sessionFile(originKey: originKey, suffix: ".json") }

    /// The file named after this account and device, ending in `suffix`, under a cloud's directory name.
    func sessionFile(originKey: String, suffix: String) -> URL {
        resolvedConfigDirectory.appendingFilePath(
            "sessions/\(originKey)/\(CacheLocation.safeName(account))/\(CacheLocation.safeName(device))\(suffix)")
    }

    /// The marker that this device was signed out on purpose.
    public var signedOutMarker: URL { sessionFile(originKey: originKey, suffix: ".signedout") }

    /// Whether the server is the default local address (where a background cloud may be started).
    public var isDefaultLocalServer: Bool {
        guard let origin, let defaultOrigin = CloudOrigin(Self.defaultServer) else { return false }
        return origin == defaultOrigin
    }
}

/// Why a device could not be opened.
public struct DeviceSessionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Words for the user.
    public var message: String

    /// An error described in words.
    public init(_ message: String) { self.message = message }

    public var description: String { message }
}

/// One device of one account: its cache, its client and its sync engine; what the command line and the TUI open.
///
/// Opening uses the kept session token without asking the cloud; a refusal of the token is handled by the engine's
/// sign-in renewal (`SyncEngine.setSignInRenewal`). Starting the local cloud and creating accounts belong to the app.
public final class DeviceSession: Sendable {
    /// The options it was opened with.
    public let options: DeviceOptions
    /// The sync engine: edits, sync events, snapshots.
    public let engine: SyncEngine
    /// The local cache.
    public let store: TodoStore
    /// The cloud client.
    public let client: CloudClient
    /// The sign-in it was opened with, nil when signed out.
    public let credentials: Credentials?

    private init(options: DeviceOptions, engine: SyncEngine, store: TodoStore, client: CloudClient, credentials: Credentials?) {
        self.options = options
        self.engine = engine
        self.store = store
        self.client = client
        self.credentials = credentials
    }

    /// Opens the device with these credentials (nil: signed out); no request reaches the cloud.
    ///
    /// Does not sync; call `engine.start()` (TUI) or `engine.sync(_:)` (command line).
    public static func open(
        _ options: DeviceOptions, credentials: Credentials?, renewal: SignInRenewal? = nil, clock: any SyncClock = SystemClock()
    ) async throws -> DeviceSession {
        let client = CloudClient(baseURL: options.server, transport: options.transport, authToken: credentials?.ckWebAuthToken)
        if credentials != nil, !options.readsCacheOnly {
            // Signed in, so the first request follows soon: its client is made while the cache opens.
            let transport = options.transport
            Task.detached(priority: .userInitiated) { transport.prepare() }
        }
        let store = try await TodoStore(url: options.cacheFile)
        let configuration = SyncConfiguration(
            deviceName: options.device, deviceID: credentials?.deviceID, account: options.account,
            publicPollInterval: options.publicPollInterval, sendsAutomatically: options.sendsAutomatically)
        let engine = SyncEngine(client: client, store: store, configuration: configuration, clock: clock)
        if credentials != nil, let renewal { await engine.setSignInRenewal(keepingFreshSessions(options, client: client, renewal)) }
        if renewal != nil { await engine.setKeptSessionReader { keptCredentials(options)?.ckWebAuthToken } }
        return DeviceSession(options: options, engine: engine, store: store, client: client, credentials: credentials)
    }

    /// Opens the device with its kept session, else signs in with the options' password or `$TODO_PASSWORD`
    /// (never creating an account); signed out when it was signed out on purpose.
    public static func open(_ options: DeviceOptions, clock: any SyncClock = SystemClock()) async throws -> DeviceSession {
        let state = keptSession(options)
        if state.signedOutOnPurpose { return try await open(options, credentials: nil, clock: clock) }
        if let kept = state.credentials { return try await open(options, credentials: kept, clock: clock) }
        guard let password = givenPassword(options) else {
            throw DeviceSessionError(
                "not signed in to \(options.server.absoluteString) as '\(options.account)': "
                    + "run todo login \(options.server.absoluteString) --account \(options.account)")
        }
        let credentials = try await signIn(options, password: password)
        return try await open(options, credentials: credentials, clock: clock)
    }

    /// Stops syncing and closes the cache.
    public func close() async {
        await engine.stop()
        await store.close()
    }

    /// Signs this device out: revokes the token, forgets it, and remembers not to sign in again by itself.
    public func signOut() async throws {
        let token = client.authToken
        if token != nil { try? await client.signOut() }
        if let token { Self.forgetSession(options, ifToken: token) } else { SecretFile.remove(options.credentialsFile) }
        try SecretFile.write(Data("signed out\n".utf8), to: options.signedOutMarker)
        await engine.signedOut("signed out")
    }

    /// Signs this device in again after a `signOut`, with the options' password or `$TODO_PASSWORD`.
    public static func signInAgain(_ options: DeviceOptions) async throws {
        guard let password = givenPassword(options) else {
            throw DeviceSessionError("give the password of '\(options.account)' (--password or $TODO_PASSWORD)")
        }
        _ = try await signIn(options, password: password)
    }

    // MARK: Sessions

    /// `renewal` made safe beside other processes of this device: a session file another process wrote since this one
    /// read it (a `todo login` in another shell) is used instead of signing in; and when the renewal fails, the file is
    /// removed only while it still holds the refused token, never a fresh one.
    public static func keepingFreshSessions(_ options: DeviceOptions, client: CloudClient, _ renewal: @escaping SignInRenewal) -> SignInRenewal {
        return {
            let refused = client.authToken
            if let kept = keptCredentials(options), kept.ckWebAuthToken != refused { return kept.ckWebAuthToken }
            do {
                return try await renewal()
            } catch {
                if let refused { forgetSession(options, ifToken: refused) }
                throw error
            }
        }
    }

    /// Removes the kept session file only when it holds `token`: a file another process wrote since (with a fresh
    /// token) is left alone. The file is moved aside first and checked there, so a write in between is never lost.
    public static func forgetSession(_ options: DeviceOptions, ifToken token: String) {
        let file = options.credentialsFile
        guard let kept = Credentials.read(from: file), kept.ckWebAuthToken == token else { return }
        let aside = file.deletingLastPathComponent().appendingPathComponent(".\(file.lastPathComponent).ended-\(UUID().uuidString)")
        guard rename(file.path, aside.path) == 0 else { return }
        if let moved = Credentials.read(from: aside), moved.ckWebAuthToken != token {
            // Another process wrote a fresh session between the check and the move: put it back unless a newer one
            // arrived meanwhile (link fails then, and the newer one stays).
            _ = link(aside.path, file.path)
        }
        SecretFile.remove(aside)
    }

    /// `--password`, else `$TODO_PASSWORD`; nil when neither is given.
    public static func givenPassword(_ options: DeviceOptions) -> String? {
        if let password = options.password, !password.isEmpty { return password }
        if let password = options.environment["TODO_PASSWORD"], !password.isEmpty { return password }
        return nil
    }

    /// The session kept for this device (nil when none) and whether it was signed out on purpose (`todo signout`;
    /// it stays so until it signs in again), its credentials file read once.
    public static func keptSession(_ options: DeviceOptions) -> (credentials: Credentials?, signedOutOnPurpose: Bool) {
        let kept = keptCredentials(options)  // migrates an old marker with its session
        return (kept, FileManager.default.fileExists(atPath: options.signedOutMarker.filePath))
    }

    /// The session kept for this account and device on this cloud; nil when none is kept (or the file is unreadable).
    ///
    /// Finds sessions filed by earlier versions under the address as typed (`127.0.0.1-8787`) and moves them to the
    /// canonical origin's place.
    public static func keptCredentials(_ options: DeviceOptions) -> Credentials? {
        if let kept = Credentials.read(from: options.credentialsFile), belongs(kept, to: options) { return kept }
        for legacyKey in options.origin?.legacyFileKeys ?? [] {
            let legacy = options.credentialsFile(originKey: CacheLocation.safeName(legacyKey))
            let legacyMarker = options.sessionFile(originKey: CacheLocation.safeName(legacyKey), suffix: ".signedout")
            if FileManager.default.fileExists(atPath: legacyMarker.filePath) {
                try? SecretFile.write(Data("signed out\n".utf8), to: options.signedOutMarker)
                SecretFile.remove(legacyMarker)
            }
            guard let kept = Credentials.read(from: legacy), belongs(kept, to: options) else { continue }
            do {
                try SecretFile.writeJSON(kept, to: options.credentialsFile)
                SecretFile.remove(legacy)
            } catch {
                // Cannot move it (read-only directory): use it where it is.
            }
            return kept
        }
        return nil
    }

    /// Whether a kept session is this account's on this device and cloud (its file could have been copied elsewhere).
    static func belongs(_ kept: Credentials, to options: DeviceOptions) -> Bool {
        kept.account == options.account && kept.deviceName == options.device && CloudOrigin(string: kept.server) == options.origin
    }

    /// Signs in with `password` (never creating an account), keeps the session (0600) and ends a signed-out state.
    public static func signIn(_ options: DeviceOptions, password: String) async throws -> Credentials {
        let client = CloudClient(baseURL: options.server, transport: options.transport)
        let cloudName = options.server.absoluteString
        let response: SignInResponse
        do {
            response = try await client.signIn(account: options.account, password: password, deviceName: options.device)
        } catch let error as CloudError where error.code == .notAuthenticated {
            throw SignInRefused(account: options.account, cloud: cloudName, reason: error.reason)
        } catch let error as CloudError where error.code == .networkUnavailable {
            throw DeviceSessionError("the cloud at \(cloudName) does not answer (\(error.reason))")
        } catch let error as CloudError {
            throw DeviceSessionError("cannot sign in to \(cloudName) as '\(options.account)': \(error.reason)")
        }
        let credentials = Credentials(
            server: options.server.absoluteString, account: options.account, deviceName: options.device,
            userRecordName: response.userRecordName, deviceID: response.deviceID, ckWebAuthToken: response.ckWebAuthToken)
        try SecretFile.writeJSON(credentials, to: options.credentialsFile)
        SecretFile.remove(options.signedOutMarker)
        return credentials
    }

    /// Revokes this device's kept session at the cloud (when it answers) and forgets it and any signed-out marker.
    ///
    /// Answers whether the cloud confirmed the revocation.
    @discardableResult
    public static func revokeAndForget(_ options: DeviceOptions) async -> Bool {
        var revoked = false
        if let kept = keptCredentials(options) {
            let client = CloudClient(baseURL: options.server, transport: options.transport, authToken: kept.ckWebAuthToken)
            do {
                try await client.signOut()
                revoked = true
            } catch let error as CloudError where error.code == .notAuthenticated {
                revoked = true  // already refused by the cloud: nothing left to revoke
            } catch {
                revoked = false
            }
        }
        SecretFile.remove(options.credentialsFile)
        SecretFile.remove(options.signedOutMarker)
        return revoked
    }
}

/// The cloud refused a sign-in: a wrong password or no such account (the cloud does not say which, by design).
public struct SignInRefused: Error, Sendable, Hashable, CustomStringConvertible {
    /// The account named.
    public var account: String
    /// The cloud's origin.
    public var cloud: String
    /// The cloud's own words.
    public var reason: String

    /// Words for the user: what was refused and what to do.
    public var description: String {
        "the cloud at \(cloud) refused the sign-in of '\(account)': wrong password or no such account "
            + "(no account was created; todo signup creates one where the cloud allows it)"
    }
}
