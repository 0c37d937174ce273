import ArgumentParser
import CloudClient
import CommandLineSupport
import Foundation
import TodoApp
import TodoSync

/// `todo logout`: revokes the saved login's session at its cloud and forgets the login and its token.
struct Logout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout", abstract: "End the saved login: revoke its session at the cloud and forget it on this device.")

    @Option(name: .customLong("data-dir"), help: "Directory for caches, credentials and the configuration (default: XDG directories).")
    var dataDir: String?

    func run() async throws {
        var options = DeviceOptions(dataDirectory: dataDir.map { URL(fileURLWithPath: $0, isDirectory: true) }, sendsAutomatically: false)
        let configFile = ConfigFile(options)
        let login: SavedLogin?
        do {
            login = try configFile.savedLogin()
        } catch {
            // Unreadable: which session it named is unknown, but the file must not block anything any longer.
            configFile.forgetLogin()
            printError("Removed the unreadable configuration file (\(error))")
            return
        }
        guard let login else {
            print("No saved login on this device (\(configFile.url.path) has none)")
            return
        }
        options.server = login.server
        options.account = login.account
        if let device = login.device { options.device = device }
        if let transport = try? CloudTransport.make(trust: TrustSettings(caFile: login.caFile)) { options.transport = transport }
        let revoked = await DeviceSession.revokeAndForget(options)
        configFile.forgetLogin()
        let cloud = login.server.absoluteString
        if revoked {
            print("Logged out \(login.account) from \(cloud): the session was revoked and the login forgotten")
        } else {
            print("Logged out \(login.account) from \(cloud): the login and its token are forgotten here")
            printError("The cloud could not be told (out of reach?); the session ends there when it expires or with todo devices revoke")
        }
        print("Commands now use the embedded cloud on this machine (each says so once); to go back: \(DeviceOpening.loginCommand(server: login.server, account: login.account))")
    }
}
