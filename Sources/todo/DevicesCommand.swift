import ArgumentParser
import CloudClient
import CloudModel
import CommandLineSupport
import Foundation
import TodoSync

/// `todo devices [revoke NAME]`: the devices signed in to this account, and signing one of them out.
struct Devices: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the devices signed in to your account, or sign one out (revoke).",
        subcommands: [DevicesList.self, DevicesRevoke.self],
        defaultSubcommand: DevicesList.self
    )
}

/// `todo devices` (`todo devices list`): name, last use and sign-in time of each signed-in device.
struct DevicesList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the devices signed in to your account.")

    @OptionGroup var device: DeviceOptionGroup

    func run() async throws {
        try await device.withSession { session in
            guard session.credentials != nil else { throw DeviceCommandError("signed out: sign in (todo signin) to list devices") }
            let devices = try await session.client.listDevices()
            let now = Date()
            let width = max(6, devices.map { $0.deviceName.count }.max() ?? 0)
            printTrusted("DEVICE".padding(toLength: width, withPad: " ", startingAt: 0) + "  LAST USED         SIGNED IN")
            for info in devices {
                let name = info.deviceName.padding(toLength: width, withPad: " ", startingAt: 0)
                let lastUsed = DeviceTimes.ago(info.lastUsed, now: now).padding(toLength: 16, withPad: " ", startingAt: 0)
                print("\(name)  \(lastUsed)  \(DeviceTimes.day(info.signedIn))\(info.current ? "  (this device)" : "")")
            }
        }
    }
}

/// `todo devices revoke NAME`: ends that device's session; it has to sign in again.
struct DevicesRevoke: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke", abstract: "Sign one of your devices out; it must sign in again to sync.")

    @OptionGroup var device: DeviceOptionGroup

    @Argument(help: "The device's name, as `todo devices` lists it.")
    var name: String

    func run() async throws {
        try await device.withSession { session in
            guard session.credentials != nil else { throw DeviceCommandError("signed out: sign in (todo signin) to revoke devices") }
            do {
                let revoked = try await session.client.revokeDevice(named: name)
                print("Signed out \(revoked.deviceName)\(revoked.current ? " (this device)" : "")")
            } catch let error as CloudError where error.code == .unknownItem {
                throw DeviceCommandError(error.reason)
            }
        }
    }
}
