import ArgumentParser
import CloudClient
import CloudModel
import CommandLineSupport
import Foundation
import TodoSync

/// `todo app-password add LABEL`: a password for a CalDAV client (a phone's task app, Thunderbird, vdirsyncer).
struct AppPassword: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app-password",
        abstract: "Make a password for a CalDAV client (phone, Thunderbird); list and revoke them with todo devices.",
        subcommands: [AppPasswordAdd.self]
    )
}

/// `todo app-password add LABEL`: prints a new app password once, with the URL and user name to type beside it.
struct AppPasswordAdd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Print a new app password for a CalDAV client, once; it shows in todo devices under LABEL.")

    @OptionGroup var device: DeviceOptionGroup

    @Argument(help: "What the password is for (phone, thunderbird): the name todo devices lists and revokes it by.")
    var label: String

    func run() async throws {
        try await device.withSession { session in
            guard session.credentials != nil else { throw DeviceCommandError("signed out: sign in (todo signin) to make an app password") }
            let made: CreateAppPasswordResponse
            do {
                made = try await session.client.createAppPassword(label: label)
            } catch let error as CloudError where error.code == .badRequest || error.code == .serverRecordChanged {
                throw DeviceCommandError(error.reason)
            }
            let url = session.client.baseURL.appendingPathComponent(".well-known/caldav").absoluteString
            print("App password for \(made.label) (shown only now; revoke it with todo devices revoke \(made.label)):")
            print("  URL:       \(url)")
            print("  User name: \(made.account)")
            print("  Password:  \(made.password)")
        }
    }
}
