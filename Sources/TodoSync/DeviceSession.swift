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
    public var dataDirectory: URL?
    /// Where credentials and generated passwords live (default `$XDG_CONFIG_HOME/cloudtodo`, or `<data-dir>/config`).
    public var configDirectory: URL?
    /// The password (else `$TODO_PASSWORD`, else the kept or a generated one).
    public var password: String?
    /// Whether to start `todo server --detach` when the default local cloud does not answer.
    public var startsLocalServer: Bool
    /// The executable that can run `server --detach` (default: this process's executable).
    public var executablePath: String?
    /// How requests reach the cloud.
    public var transport: any HTTPTransport
    /// The engine's configuration, less the names filled in from the sign-in.
    public var publicPollInterval: Double
    /// Whether local edits are sent at once in the background (the TUI); the command line sends explicitly.
    public var sendsAutomatically: Bool
    /// The environment to read `USER`, `TODO_PASSWORD` and the XDG variables from.
    public var environment: [String: String]

    /// Options with defaults from the environment.
    public init(
        account: String? = nil, device: String? = nil, server: URL? = nil, dataDirectory: URL? = nil, configDirectory: URL? = nil,
        password: String? = nil, startsLocalServer: Bool = true, executablePath: String? = nil,
        transport: any HTTPTransport = HTTPClientTransport(), publicPollInterval: Double = 300, sendsAutomatically: Bool = true,
        environment: [String: String] = ProcessInfo.processInfo.environment
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
    }

    /// The resolved data directory.
    public var resolvedDataDirectory: URL { CacheLocation.dataDirectory(override: dataDirectory, environment: environment) }

    /// The resolved configuration directory.
    public var resolvedConfigDirectory: URL {
        if let configDirectory { return configDirectory }
        if let dataDirectory { return dataDirectory.appendingPathComponent("config") }
        if let xdg = environment["XDG_CONFIG_HOME"], !xdg.isEmpty {
            return URL(fileURLWithPath: xdg).appendingPathComponent("cloudtodo")
        }
        let home = environment["HOME"].map { URL(fileURLWithPath: $0) } ?? FileManager.default.homeDirectoryForCurrentUser
        return home.appendingPathComponent(".config/cloudtodo")
    }

    /// The cache file of this account on this device.
    public var cacheFile: URL { CacheLocation.cacheFile(account: account, device: device, dataDirectory: resolvedDataDirectory) }

    var serverKey: String { CacheLocation.safeName("\(server.host ?? "cloud")-\(server.port ?? 80)") }

    /// The session file (0600) of this account on this device.
    public var credentialsFile: URL {
        resolvedConfigDirectory.appendingPathComponent("sessions").appendingPathComponent(serverKey)
            .appendingPathComponent(CacheLocation.safeName(account))
            .appendingPathComponent(CacheLocation.safeName(device) + ".json")
    }

    /// The marker that this device was signed out on purpose.
    var signedOutMarker: URL { credentialsFile.deletingPathExtension().appendingPathExtension("signedout") }

    /// The kept password of the account (0600), shared by every device on this machine.
    public var passwordFile: URL {
        resolvedConfigDirectory.appendingPathComponent("passwords").appendingPathComponent(serverKey)
            .appendingPathComponent(CacheLocation.safeName(account))
    }

    /// Whether the server is the default local address (where a background cloud may be started).
    public var isDefaultLocalServer: Bool {
        (server.host == "127.0.0.1" || server.host == "localhost") && (server.port ?? 80) == Self.defaultServer.port
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
public final class DeviceSession: Sendable {
    /// The options it was opened with.
    public let options: DeviceOptions
    /// The sync engine: edits, sync events, snapshots.
    public let engine: SyncEngine
    /// The local cache.
    public let store: TodoStore
    /// The cloud client.
    public let client: CloudClient
    /// The sign-in, nil when signed out.
    public let credentials: Credentials?

    private init(options: DeviceOptions, engine: SyncEngine, store: TodoStore, client: CloudClient, credentials: Credentials?) {
        self.options = options
        self.engine = engine
        self.store = store
        self.client = client
        self.credentials = credentials
    }

    /// Opens the device: starts the local cloud if needed, signs in (creating the account on first use), opens the cache.
    ///
    /// Does not sync; call `engine.start()` (TUI) or `engine.sync(_:)` (command line).
    public static func open(_ options: DeviceOptions, clock: any SyncClock = SystemClock()) async throws -> DeviceSession {
        let client = CloudClient(baseURL: options.server, transport: options.transport)
        if options.isDefaultLocalServer && options.startsLocalServer {
            let healthy = await client.isHealthy(timeout: 1)
            if !healthy { try await startLocalServer(options, client: client) }
        }
        let credentials = try await signIn(options, client: client)
        let store = try TodoStore(url: options.cacheFile)
        let configuration = SyncConfiguration(
            deviceName: options.device, deviceID: credentials?.deviceID, account: options.account,
            publicPollInterval: options.publicPollInterval, sendsAutomatically: options.sendsAutomatically)
        let engine = SyncEngine(client: client, store: store, configuration: configuration, clock: clock)
        return DeviceSession(options: options, engine: engine, store: store, client: client, credentials: credentials)
    }

    /// Stops syncing and closes the cache.
    public func close() async {
        await engine.stop()
        await store.close()
    }

    /// Signs this device out: revokes the token, forgets it, and remembers not to sign in again by itself.
    public func signOut() async throws {
        if client.authToken != nil { try? await client.signOut() }
        SecretFile.remove(options.credentialsFile)
        try SecretFile.write(Data("signed out\n".utf8), to: options.signedOutMarker)
        await engine.signedOut("signed out")
    }

    /// Signs this device in again after a `signOut`.
    public static func signInAgain(_ options: DeviceOptions) async throws {
        SecretFile.remove(options.signedOutMarker)
        let client = CloudClient(baseURL: options.server, transport: options.transport)
        _ = try await signIn(options, client: client)
    }

    // MARK: Accounts

    /// The kept session if it still works, else a fresh sign-in (creating the account on an open-registration cloud).
    static func signIn(_ options: DeviceOptions, client: CloudClient) async throws -> Credentials? {
        if FileManager.default.fileExists(atPath: options.signedOutMarker.path) { return nil }
        if let kept = SecretFile.readJSON(Credentials.self, from: options.credentialsFile), kept.server == options.server.absoluteString {
            client.authToken = kept.ckWebAuthToken
            do {
                _ = try await client.caller()
                return kept
            } catch let error as CloudError where error.code == .notAuthenticated {
                client.authToken = nil  // revoked or the cloud was reset: sign in again below
            } catch {
                return kept  // offline: work with the kept session
            }
        }
        let password = try password(for: options)
        let response: SignInResponse
        do {
            response = try await client.signIn(account: options.account, password: password, deviceName: options.device)
        } catch let error as CloudError where error.code == .notAuthenticated {
            do {
                _ = try await client.createAccount(account: options.account, password: password)
            } catch let create as CloudError where create.serverErrorCode == .exists {
                // Another device may have created it a moment ago (two first launches at once): the sign-in below decides.
            } catch let create as CloudError {
                throw DeviceSessionError("cannot sign in as '\(options.account)': \(error.reason); cannot create it: \(create.reason)")
            }
            do {
                response = try await client.signIn(account: options.account, password: password, deviceName: options.device)
            } catch let retry as CloudError where retry.code == .notAuthenticated {
                throw DeviceSessionError("wrong password for account '\(options.account)' (use --password or $TODO_PASSWORD)")
            }
        } catch let error as CloudError where error.code == .networkUnavailable {
            throw DeviceSessionError("the cloud at \(options.server.absoluteString) does not answer (\(error.reason))")
        }
        let credentials = Credentials(
            server: options.server.absoluteString, account: options.account, deviceName: options.device,
            userRecordName: response.userRecordName, deviceID: response.deviceID, ckWebAuthToken: response.ckWebAuthToken)
        try SecretFile.writeJSON(credentials, to: options.credentialsFile)
        return credentials
    }

    /// `--password`, else `$TODO_PASSWORD`, else the kept one, else a new one kept with mode 0600.
    static func password(for options: DeviceOptions) throws -> String {
        if let password = options.password, !password.isEmpty { return password }
        if let password = options.environment["TODO_PASSWORD"], !password.isEmpty { return password }
        if let kept = SecretFile.read(options.passwordFile), let text = String(data: kept, encoding: .utf8) {
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if !trimmed.isEmpty { return trimmed }
        }
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        let generated = String((0..<24).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
        try SecretFile.write(Data((generated + "\n").utf8), to: options.passwordFile)
        return generated
    }

    // MARK: The embedded default cloud

    /// Starts `todo server --detach --open-registration` and waits until `/health` answers.
    static func startLocalServer(_ options: DeviceOptions, client: CloudClient) async throws {
        let executable = options.executablePath ?? currentExecutablePath()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        var arguments = [
            "server", "--detach", "--open-registration", "--host", options.server.host ?? "127.0.0.1", "--port",
            String(options.server.port ?? 8787),
        ]
        if let dataDirectory = options.dataDirectory {
            arguments += ["--data-dir", dataDirectory.appendingPathComponent("server").path]
        }
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw DeviceSessionError("cannot start the local cloud (\(executable) server --detach): \(error)")
        }
        for _ in 0..<100 {
            if await client.isHealthy(timeout: 0.5) { return }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        throw DeviceSessionError("started the local cloud, but \(options.server.absoluteString)/health does not answer")
    }

    static func currentExecutablePath() -> String {
        let proc = "/proc/self/exe"
        if let resolved = try? FileManager.default.destinationOfSymbolicLink(atPath: proc) { return resolved }
        let argument0 = CommandLine.arguments.first ?? "todo"
        if argument0.contains("/") { return URL(fileURLWithPath: argument0).standardizedFileURL.path }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = "\(directory)/\(argument0)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return argument0
    }
}
