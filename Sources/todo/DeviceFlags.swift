import ArgumentParser
import CloudClient
import Foundation
import TodoApp
import TodoSync

/// The device options of a command line as plain values (`DeviceOptionGroup` reads them, and so does
/// `QuickCommandLine`): each nil where the line did not give it. They open the device a verb works on.
struct DeviceFlags: Sendable, Equatable {
    /// `--account`.
    var account: String?
    /// `--device`.
    var device: String?
    /// `--server`, as typed.
    var server: String?
    /// `--ca-file`, as typed.
    var caFile: String?
    /// `--data-dir`, as typed.
    var dataDir: String?
    /// `--password`.
    var password: String?

    /// Refuses a value the options cannot take (a server that is no URL, an empty name).
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
