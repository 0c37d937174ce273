import ArgumentParser
import CloudClient
import Foundation
import CloudModel
import TodoApp
import TodoPlanning
import TodoStore
import TodoSync

/// The options every device verb shares: which account, which device, which cloud, where the data lives.
///
/// Each is optional: what is not given comes from the saved login (`todo login`), else the embedded local cloud.
struct DeviceOptionGroup: ParsableArguments {
    @Option(help: "Account name (default: the saved login's, else $USER). Never created here: see todo signup.")
    var account: String?

    @Option(help: "Device name; each device has its own cache (default: the saved login's, else main).")
    var device: String?

    @Option(help: "Cloud base URL (default: the saved login's, else http://127.0.0.1:8787, started in the background if it does not answer).")
    var server: String?

    @Option(name: .customLong("ca-file"), help: "PEM file of certificate authorities to trust for https (default: $TODO_CA_FILE, else the saved login's).")
    var caFile: String?

    @Option(name: .customLong("data-dir"), help: "Directory for caches, credentials and the configuration (default: XDG directories).")
    var dataDir: String?

    @Option(help: "Account password for a sign-in (default: $TODO_PASSWORD; on the embedded local cloud, a generated one kept 0600).")
    var password: String?

    func validate() throws {
        if let server, CloudOrigin(string: server) == nil {
            throw ValidationError("--server must be an http:// or https:// URL with a host, like https://todo.example.org")
        }
        if let device, device.isEmpty { throw ValidationError("--device must not be empty") }
        if let account, account.isEmpty { throw ValidationError("--account must not be empty") }
        if let caFile, caFile.isEmpty { throw ValidationError("--ca-file must not be empty") }
    }

    /// What the flags say, the rest left to the saved login and the environment.
    var choice: DeviceChoice {
        DeviceChoice(
            server: server.flatMap(cloudURL), account: account, device: device,
            caFile: caFile.map { absolutePath($0) }, dataDirectory: dataDir.map { URL(fileURLWithPath: $0, isDirectory: true) },
            password: password)
    }

    /// The device these flags, the saved login and the environment describe.
    func launch() throws -> DeviceLaunch { try choice.resolve() }

    /// The session options these flags describe.
    func deviceOptions() throws -> DeviceOptions { try launch().options }

    /// `withSession` for a verb that reads: it first fetches what changed, unless `offline`, when it reaches for no
    /// cloud at all and reads the cache as it is.
    func withFreshSession<T>(orSignedOut: Bool = false, offline: Bool, _ body: (DeviceSession) async throws -> T) async throws -> T {
        try await withSession(orSignedOut: orSignedOut, offline: offline) { session in
            if !offline { await session.engine.sync(.manualRefresh) }
            return try await body(session)
        }
    }

    /// Opens the device, runs `body`, and closes it again; `orSignedOut`: with no session, signed out (the cache only).
    /// `offline`: the command reads the cache only (its `--offline`): nothing reaches for the cloud before a request.
    func withSession<T>(orSignedOut: Bool = false, offline: Bool = false, _ body: (DeviceSession) async throws -> T) async throws -> T {
        var launch = try launch()
        launch.options.readsCacheOnly = offline
        announceCloud(launch)
        let session = try await DeviceOpening.open(launch.options, orSignedOut: orSignedOut, announce: announceOnStandardError)
        await session.engine.loadFromStore()
        do {
            let result = try await body(session)
            await session.close()
            return result
        } catch {
            await session.close()
            throw error
        }
    }
}

/// A cloud's URL as typed, without surrounding spaces or a trailing slash.
func cloudURL(_ text: String) -> URL? {
    var trimmed = text.trimmingCharacters(in: .whitespaces)
    while trimmed.hasSuffix("/") { trimmed.removeLast() }
    return URL(string: trimmed)
}

/// A path made absolute against the working directory, so a saved or passed file still names it from elsewhere.
func absolutePath(_ path: String) -> String {
    URL(fileURLWithPath: path).standardizedFileURL.path
}
