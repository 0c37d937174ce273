import CloudClient
import CloudModel
import Foundation
import TodoStore
import TodoSync

/// The embedded local cloud's zero set-up: started on demand, the account created on first use with a generated
/// password kept in a 0600 file. Only for the default local address with nothing saved; any other cloud is signed in
/// to explicitly (`todo login`, `todo signup`).
public enum LocalCloudBootstrap {
    /// Opens a device on the embedded cloud: starts it when it does not answer, then opens with the kept session, or
    /// signs in (creating the account on first use). A refused token later is renewed the same way. `announce` is told,
    /// in words for a person, when the cloud is started and when an account is created.
    public static func open(
        _ options: DeviceOptions, clock: any SyncClock = SystemClock(), announce: @escaping Announce = { _ in }
    ) async throws -> DeviceSession {
        if options.startsLocalServer {
            let client = CloudClient(baseURL: options.server, transport: options.transport)
            if !(await client.isHealthy(timeout: 1)) {
                try await startLocalServer(options, client: client)
                announce("started the embedded cloud at \(options.server.absoluteString) on this machine (\(stopCommand(options)) ends it)")
            }
        }
        return try await openCreatingAccount(options, clock: clock, announce: announce)
    }

    /// The command that stops the cloud `startLocalServer` starts for `options`: under a device's `--data-dir` the
    /// cloud keeps its data in that directory's `server`, which `todo server stop` is then told.
    static func stopCommand(_ options: DeviceOptions) -> String {
        guard let dataDirectory = options.dataDirectory else { return "todo server stop" }
        return "todo server stop --data-dir \(DeviceOpening.shellWord(dataDirectory.appendingPathComponent("server").path))"
    }

    /// Told what the zero set-up did on its own (started the cloud, created an account), in words for a person.
    public typealias Announce = @Sendable (String) -> Void

    /// Opens with the kept session, else signs in and creates the account when the cloud does not know it (the
    /// embedded cloud's first use); a refused token is renewed the same way. Never starts a cloud.
    public static func openCreatingAccount(
        _ options: DeviceOptions, clock: any SyncClock = SystemClock(), announce: @escaping Announce = { _ in }
    ) async throws -> DeviceSession {
        let renewal: SignInRenewal = { try await signInCreatingAccount(options, announce: announce).ckWebAuthToken }
        let state = DeviceSession.keptSession(options)
        if state.signedOutOnPurpose { return try await DeviceSession.open(options, credentials: nil, clock: clock) }
        let credentials: Credentials
        if let kept = state.credentials {
            credentials = kept
        } else {
            credentials = try await signInCreatingAccount(options, announce: announce)
        }
        return try await DeviceSession.open(options, credentials: credentials, renewal: renewal, clock: clock)
    }

    /// Signs in with the password (given, kept or generated); creates the account when the cloud does not know it, and
    /// tells `announce` so.
    public static func signInCreatingAccount(_ options: DeviceOptions, announce: @escaping Announce = { _ in }) async throws -> Credentials {
        let password = try password(for: options)
        do {
            return try await DeviceSession.signIn(options, password: password)
        } catch let refused as SignInRefused {
            let client = CloudClient(baseURL: options.server, transport: options.transport)
            do {
                _ = try await client.createAccount(account: options.account, password: password)
                let kept = DeviceSession.givenPassword(options) == nil ? " (its password is kept in \(options.passwordFile.path))" : ""
                announce("created the account '\(options.account)' on the embedded cloud at \(options.server.absoluteString)\(kept)")
            } catch let create as CloudError where create.serverErrorCode == .exists {
                // The account exists, so the password was wrong (or another device created it a moment ago: the
                // sign-in below decides).
            } catch let create as CloudError {
                throw DeviceSessionError("\(refused); cannot create '\(options.account)' on the local cloud: \(create.reason)")
            }
            do {
                return try await DeviceSession.signIn(options, password: password)
            } catch is SignInRefused {
                throw DeviceSessionError(
                    "wrong password for account '\(options.account)' on the local cloud (use --password or $TODO_PASSWORD; "
                        + "the kept one is \(options.passwordFile.path))")
            }
        }
    }

    /// `--password`, else `$TODO_PASSWORD`, else the kept one, else a new one kept with mode 0600.
    static func password(for options: DeviceOptions) throws -> String {
        if let given = DeviceSession.givenPassword(options) { return given }
        if let kept = keptPassword(options) { return kept }
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        let generated = String((0..<24).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
        try SecretFile.write(Data((generated + "\n").utf8), to: options.passwordFile)
        return generated
    }

    /// The kept password of the account on this cloud; finds one filed by an earlier version under the address as
    /// typed (`127.0.0.1-8787`) and moves it to the canonical origin's place.
    static func keptPassword(_ options: DeviceOptions) -> String? {
        func text(_ url: URL) -> String? {
            guard let data = SecretFile.read(url), data.count <= 4096, let text = String(data: data, encoding: .utf8) else { return nil }
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            return trimmed.isEmpty ? nil : trimmed
        }
        if let kept = text(options.passwordFile) { return kept }
        for legacy in options.legacyPasswordFiles {
            guard let kept = text(legacy) else { continue }
            if (try? SecretFile.write(Data((kept + "\n").utf8), to: options.passwordFile)) != nil { SecretFile.remove(legacy) }
            return kept
        }
        return nil
    }

    // MARK: Starting the cloud

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

extension DeviceOptions {
    /// The kept password of the account on this cloud (0600), shared by every device on this machine; only the
    /// embedded cloud's bootstrap writes one.
    public var passwordFile: URL { passwordFile(originKey: origin?.fileKey ?? "cloud") }

    /// Where earlier versions kept the password (under the address as typed).
    var legacyPasswordFiles: [URL] { (origin?.legacyFileKeys ?? []).map(passwordFile(originKey:)) }

    /// The password file of this account under a cloud's name (made safe here).
    private func passwordFile(originKey: String) -> URL {
        resolvedConfigDirectory.appendingFilePath("passwords/\(CacheLocation.safeName(originKey))/\(CacheLocation.safeName(account))")
    }
}
