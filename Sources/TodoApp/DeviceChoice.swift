import CloudClient
import Foundation
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
    public var environment: [String: String]

    /// A choice of the given flags.
    public init(
        server: URL? = nil, account: String? = nil, device: String? = nil, caFile: String? = nil, dataDirectory: URL? = nil,
        password: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment
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
                source = .savedLogin(configFile.url.path)
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
    /// `announce` hears what the embedded cloud's zero set-up did on its own (started the cloud, created an account).
    public static func open(
        _ options: DeviceOptions, clock: any SyncClock = SystemClock(), announce: @escaping LocalCloudBootstrap.Announce = { _ in }
    ) async throws -> DeviceSession {
        if options.isDefaultLocalServer { return try await LocalCloudBootstrap.open(options, clock: clock, announce: announce) }
        return try await openSignedIn(options, clock: clock)
    }

    /// Opens with the kept session, else signs in with the given password; a refused token is renewed with the given
    /// password, else forgotten with words asking for `todo login` (the outbox stays for the next sign-in).
    static func openSignedIn(_ options: DeviceOptions, clock: any SyncClock) async throws -> DeviceSession {
        if DeviceSession.isSignedOutOnPurpose(options) { return try await DeviceSession.open(options, credentials: nil, clock: clock) }
        let credentials: Credentials
        if let kept = DeviceSession.keptCredentials(options) {
            credentials = kept
        } else if let password = DeviceSession.givenPassword(options) {
            credentials = try await DeviceSession.signIn(options, password: password)
        } else {
            throw DeviceSessionError("not signed in to \(cloudName(options)) as '\(options.account)': run \(loginCommand(options))")
        }
        let renewal: SignInRenewal = {
            if let password = DeviceSession.givenPassword(options) {
                return try await DeviceSession.signIn(options, password: password).ckWebAuthToken
            }
            SecretFile.remove(options.credentialsFile)
            throw DeviceSessionError(
                "the cloud at \(cloudName(options)) no longer accepts this device's session (signed out elsewhere, revoked or "
                    + "expired): run \(loginCommand(options)); what waits on this device is kept and sent after that")
        }
        return try await DeviceSession.open(options, credentials: credentials, renewal: renewal, clock: clock)
    }

    /// The cloud's origin for messages.
    static func cloudName(_ options: DeviceOptions) -> String { options.server.absoluteString }

    /// The command that signs this device in again.
    static func loginCommand(_ options: DeviceOptions) -> String {
        var words = "todo login \(options.server.absoluteString) --account \(options.account)"
        if options.device != "main" { words += " --device \(options.device)" }
        return words
    }
}
