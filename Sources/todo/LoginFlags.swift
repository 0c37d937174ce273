import ArgumentParser
import CloudClient
import Foundation
import TodoApp
import TodoSync

/// The flags `todo login` and `todo signup` share: the cloud, the account, the device, the trust, the data.
struct LoginFlags: ParsableArguments {
    @Argument(help: "The cloud's URL, like https://todo.example.org (http:// for a cloud on this machine or behind your own proxy).")
    var url: String

    @Option(help: "The account name.")
    var account: String

    @Option(help: "This device's name; each device has its own cache (default: main).")
    var device: String?

    @Option(name: .customLong("ca-file"), help: "PEM file of certificate authorities to trust (a private CA; default: $TODO_CA_FILE).")
    var caFile: String?

    @Option(name: .customLong("data-dir"), help: "Directory for caches, credentials and the configuration (default: XDG directories).")
    var dataDir: String?

    func validate() throws {
        guard CloudOrigin(string: url) != nil else {
            throw ValidationError("the cloud's URL must be http:// or https:// with a host, like https://todo.example.org")
        }
        guard !account.isEmpty else { throw ValidationError("--account must not be empty") }
        if let device, device.isEmpty { throw ValidationError("--device must not be empty") }
        if let caFile, caFile.isEmpty { throw ValidationError("--ca-file must not be empty") }
    }

    /// The cloud's URL as typed, without a trailing slash.
    var server: URL { cloudURL(url) ?? DeviceOptions.defaultServer }

    /// `--ca-file`, else `$TODO_CA_FILE`, as an absolute path; nil for the system's store only.
    ///
    /// The transport made from it reads the file and names what is wrong with it (missing, unreadable, not PEM).
    func trustedAuthorities(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        (caFile ?? environment["TODO_CA_FILE"].flatMap({ $0.isEmpty ? nil : $0 })).map(absolutePath)
    }

    /// The device options of this login, with a transport trusting `caFile`.
    func deviceOptions(caFile: String?) throws -> DeviceOptions {
        var options = DeviceOptions(
            account: account, device: device, server: server, dataDirectory: dataDir.map { URL(fileURLWithPath: $0, isDirectory: true) },
            sendsAutomatically: false)
        options.transport = try CloudTransport.make(trust: TrustSettings(caFile: caFile))
        return options
    }

    /// Signs in (never creating an account), ends the session of a different earlier login, and saves this one.
    ///
    /// Without `--ca-file` or `$TODO_CA_FILE`, a login to the cloud already saved trusts the saved `ca-file`: the
    /// command the app prints to sign in again works as printed against a cloud with a private CA.
    func logIn(password: String) async throws {
        let bare = try deviceOptions(caFile: nil)
        let earlier = try? ConfigFile(bare).savedLogin()
        let savedCAFile = earlier.flatMap { CloudOrigin($0.server) == bare.origin ? $0.caFile : nil }
        let caFile = trustedAuthorities() ?? savedCAFile
        let options = caFile == nil ? bare : try deviceOptions(caFile: caFile)
        let configFile = ConfigFile(options)
        let replaced = DeviceSession.keptCredentials(options)
        _ = try await DeviceSession.signIn(options, password: password)
        if let replaced {
            // This device's earlier session with this cloud is replaced: end it there too (best effort).
            try? await CloudClient(baseURL: options.server, transport: options.transport, authToken: replaced.ckWebAuthToken).signOut()
        }
        let login = SavedLogin(server: server, account: account, device: device, caFile: caFile)
        try configFile.save(login)
        if let earlier, CloudOrigin(earlier.server) != options.origin || earlier.account != account || (earlier.device ?? "main") != options.device {
            // The earlier login is replaced: its session ends too (best effort: its cloud may be out of reach).
            var old = DeviceOptions(
                account: earlier.account, device: earlier.device, server: earlier.server, dataDirectory: options.dataDirectory,
                sendsAutomatically: false)
            if let transport = try? CloudTransport.make(trust: TrustSettings(caFile: earlier.caFile)) { old.transport = transport }
            await DeviceSession.revokeAndForget(old)
        }
        // Said here once: later commands use this cloud without a notice.
        LastCloud(server: login.server, account: login.account, embedded: false).remember(options)
        let cloud = server.absoluteString
        print("Logged in to \(cloud) as \(account) on device \(options.device); saved in \(configFile.url.path)")
    }
}
