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

    func validate() throws { try flags.validate() }

    /// The options as plain values.
    var flags: DeviceFlags {
        DeviceFlags(account: account, device: device, server: server, caFile: caFile, dataDir: dataDir, password: password)
    }

    /// What the flags say, the rest left to the saved login and the environment.
    var choice: DeviceChoice { flags.choice }

    /// The device these flags, the saved login and the environment describe.
    func launch() throws -> DeviceLaunch { try flags.launch() }

    /// The session options these flags describe.
    func deviceOptions() throws -> DeviceOptions { try flags.deviceOptions() }

    /// `DeviceFlags.withFreshSession` with these flags.
    func withFreshSession<T>(orSignedOut: Bool = false, offline: Bool, _ body: (DeviceSession) async throws -> T) async throws -> T {
        try await flags.withFreshSession(orSignedOut: orSignedOut, offline: offline, body)
    }

    /// `DeviceFlags.withSession` with these flags.
    func withSession<T>(orSignedOut: Bool = false, offline: Bool = false, _ body: (DeviceSession) async throws -> T) async throws -> T {
        try await flags.withSession(orSignedOut: orSignedOut, offline: offline, body)
    }
}

/// A cloud's URL as typed, without surrounding spaces or a trailing slash.
func cloudURL(_ text: String) -> URL? {
    var trimmed = text.trimmingSpacesAndTabs
    while trimmed.hasSuffix("/") { trimmed.removeLast() }
    return URL(string: trimmed)
}

/// A path made absolute against the working directory, so a saved or passed file still names it from elsewhere.
func absolutePath(_ path: String) -> String {
    URL(fileURLWithPath: path).standardizedFileURL.path
}
