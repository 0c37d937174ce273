import CloudClient
import Foundation
import TodoStore
import TodoSync

/// What the command line said about which device to open; nil where it said nothing. `resolve()` fills in the rest
/// from the saved login (`todo login`) and the environment.
public struct DeviceChoice: Sendable {
    /// `--server`: the cloud's URL.
    public var server: URL?
    /// `--account`.
    public var account: String?
    /// `--device`.
    public var device: String?
    /// `--ca-file`: extra certificate authorities to trust.
    public var caFile: String?
    /// `--data-dir`.
    public var dataDirectory: URL?
    /// `--password`.
    public var password: String?
    /// The environment (`USER`, `TODO_PASSWORD`, `TODO_CA_FILE`, the XDG variables).
    public var environment: ProcessEnvironment

    /// A choice of the given flags.
    public init(
        server: URL? = nil, account: String? = nil, device: String? = nil, caFile: String? = nil, dataDirectory: URL? = nil,
        password: String? = nil, environment: ProcessEnvironment = .process
    ) {
        self.server = server
        self.account = account
        self.device = device
        self.caFile = caFile
        self.dataDirectory = dataDirectory
        self.password = password
        self.environment = environment
    }

    /// The device options: explicit flags win; else the saved login (its account, device and trust apply when the
    /// flags name no other cloud); else the embedded local cloud as `$USER` on `main`.
    public func resolve() throws -> DeviceLaunch {
        var options = DeviceOptions(
            account: account, device: device, server: server, dataDirectory: dataDirectory, password: password,
            sendsAutomatically: false, environment: environment)
        let configFile = ConfigFile(options)
        let saved = try configFile.savedLogin()
        var source = server == nil ? LoginSource.embedded : .flags
        var savedCAFile: String?
        let namesSavedCloud = server.map { CloudOrigin($0) == CloudOrigin(saved?.server ?? $0) } ?? true
        if let saved, namesSavedCloud {
            if server == nil {
                options.server = saved.server
                source = .savedLogin(configFile.url.filePath)
            }
            if account == nil { options.account = saved.account }
            if device == nil, let savedDevice = saved.device { options.device = savedDevice }
            savedCAFile = saved.caFile
        }
        let environmentCAFile = environment["TODO_CA_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        let trust = TrustSettings(caFile: caFile ?? environmentCAFile ?? savedCAFile)
        options.transport = try CloudTransport.make(trust: trust)
        return DeviceLaunch(options: options, trust: trust, source: source)
    }
}

/// Where the cloud a device uses was named.
public enum LoginSource: Sendable, Hashable {
    /// Nothing named one: the embedded local cloud at the default address.
    case embedded
    /// `--server` on the command line.
    case flags
    /// The saved login in this configuration file.
    case savedLogin(String)

    /// Words for `todo status`.
    public var description: String {
        switch self {
        case .embedded: "the embedded local cloud (started on demand)"
        case .flags: "--server"
        case .savedLogin(let file): "saved login (\(file))"
        }
    }
}

/// A resolved device: its options, the certificates it trusts, and where its cloud was named.
public struct DeviceLaunch: Sendable {
    /// The options to open with (transport made for `trust`).
    public var options: DeviceOptions
    /// The certificates trusted for https.
    public var trust: TrustSettings
    /// Where the cloud was named.
    public var source: LoginSource
}

/// Opens a device the way its cloud asks for: the embedded local cloud with its zero set-up, any other cloud with the
/// kept session of `todo login` (or a sign-in with a given password), never creating an account.
public enum DeviceOpening {
    /// Opens the device; no request probes a kept session (a refused token is handled when the first request fails).
    /// `orSignedOut`: with no session kept and no password given, opens signed out (the cache readable, nothing
    /// changeable) instead of failing: what `todo list`, `todo status` and the app do. `announce` hears what the
    /// embedded cloud's zero set-up did on its own (started the cloud, created an account).
    public static func open(
        _ options: DeviceOptions, orSignedOut: Bool = false, clock: any SyncClock = SystemClock(),
        announce: @escaping LocalCloudBootstrap.Announce = { _ in }
    ) async throws -> DeviceSession {
        if options.readsCacheOnly { return try await openCacheOnly(options, clock: clock) }
        if options.isDefaultLocalServer { return try await LocalCloudBootstrap.open(options, clock: clock, announce: announce) }
        return try await openSignedIn(options, orSignedOut: orSignedOut, clock: clock)
    }

    /// An `--offline` read: opens with the kept session, else signed out, and asks, starts or signs in to no cloud.
    /// Signed out without a session on any cloud but the embedded one, it says so with the command that signs in
    /// (on the embedded cloud the next command that is not offline makes the session by itself).
    static func openCacheOnly(_ options: DeviceOptions, clock: any SyncClock) async throws -> DeviceSession {
        let state = DeviceSession.keptSession(options)
        let onPurpose = state.signedOutOnPurpose
        let kept = onPurpose ? nil : state.credentials
        let session = try await DeviceSession.open(options, credentials: kept, clock: clock)
        if kept == nil, !onPurpose, !options.isDefaultLocalServer { await session.engine.signedOut(notSignedIn(options)) }
        return session
    }

    /// Opens with the kept session, else signs in with the given password; a refused token is renewed with the given
    /// password, else the device is signed out with words giving the command that signs it in again (the outbox
    /// stays for the next sign-in).
    static func openSignedIn(_ options: DeviceOptions, orSignedOut: Bool, clock: any SyncClock) async throws -> DeviceSession {
        let state = DeviceSession.keptSession(options)
        if state.signedOutOnPurpose { return try await DeviceSession.open(options, credentials: nil, clock: clock) }
        let credentials: Credentials
        if let kept = state.credentials {
            credentials = kept
        } else if let password = DeviceSession.givenPassword(options) {
            credentials = try await DeviceSession.signIn(options, password: password)
        } else if orSignedOut {
            let session = try await DeviceSession.open(options, credentials: nil, clock: clock)
            await session.engine.signedOut(notSignedIn(options))
            return session
        } else {
            throw DeviceSessionError(notSignedIn(options))
        }
        return try await DeviceSession.open(options, credentials: credentials, renewal: renewal(options), clock: clock)
    }

    /// What a refused session token does: signs in again with the given password, else says how to sign in.
    public static func renewal(_ options: DeviceOptions) -> SignInRenewal {
        if options.isDefaultLocalServer { return { try await LocalCloudBootstrap.signInCreatingAccount(options).ckWebAuthToken } }
        return {
            if let password = DeviceSession.givenPassword(options) {
                return try await DeviceSession.signIn(options, password: password).ckWebAuthToken
            }
            throw DeviceSessionError(
                "this device's session at \(cloudName(options)) ended (revoked, password changed, account removed or "
                    + "expired): run \(loginCommand(options)); what waits on this device is kept and sent after that")
        }
    }

    /// Signs an open device in again with `password` (the app's `L`): keeps the new session (0600) and resumes
    /// syncing. On the embedded local cloud a kept generated password is replaced by this one.
    public static func signInAgain(_ session: DeviceSession, password: String) async throws {
        let options = session.options
        let credentials = try await DeviceSession.signIn(options, password: password)
        if options.isDefaultLocalServer, FileManager.default.fileExists(atPath: options.passwordFile.filePath) {
            try? SecretFile.write(Data((password + "\n").utf8), to: options.passwordFile)
        }
        await session.engine.resumeSession(
            token: credentials.ckWebAuthToken,
            renewal: DeviceSession.keepingFreshSessions(options, client: session.client, renewal(options)))
    }

    /// Words for a device with no session: not signed in, and the command that signs it in.
    static func notSignedIn(_ options: DeviceOptions) -> String {
        "not signed in to \(cloudName(options)) as '\(options.account)': run \(loginCommand(options))"
    }

    /// The cloud's origin for messages.
    static func cloudName(_ options: DeviceOptions) -> String { options.server.absoluteString }

    /// The command that signs this device in again, to be run as printed: the device and data directory are named
    /// when they are not the defaults (a certificate authority comes from the saved login).
    public static func loginCommand(_ options: DeviceOptions) -> String {
        loginCommand(server: options.server, account: options.account, device: options.device, dataDirectory: options.dataDirectory)
    }

    /// `todo login SERVER --account ACCOUNT`, with the device and data directory when they are not the defaults,
    /// quoted for a POSIX shell.
    public static func loginCommand(server: URL, account: String, device: String = "main", dataDirectory: URL? = nil) -> String {
        var words = ["todo", "login", server.absoluteString, "--account", account]
        if device != "main" { words += ["--device", device] }
        if let dataDirectory { words += ["--data-dir", dataDirectory.path] }
        return words.map(shellWord).joined(separator: " ")
    }

    /// A word as a POSIX shell reads it back: as is when it holds only safe characters, else single-quoted.
    static func shellWord(_ word: String) -> String {
        let safe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@%+=,")
        if !word.isEmpty, word.allSatisfy({ safe.contains($0) }) { return word }
        return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
