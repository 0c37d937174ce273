import ArgumentParser
import CloudClient
import CloudModel
import CommandLineSupport
import Foundation
import TodoSync

/// `todo signup URL --account NAME`: creates an account where the cloud allows registration, then logs in.
struct Signup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signup", abstract: "Create an account on a cloud that allows registration, then log in as with todo login.")

    @OptionGroup var flags: LoginFlags

    func run() async throws {
        let password = try PasswordPrompt.password("New password for \(flags.account) at \(flags.server.absoluteString): ", confirm: true)
        let options = try flags.deviceOptions(caFile: flags.trustedAuthorities())
        let cloud = flags.server.absoluteString
        let client = CloudClient(baseURL: options.server, transport: options.transport)
        do {
            _ = try await client.createAccount(account: flags.account, password: password)
        } catch let error as CloudError {
            switch error.code {
            case .permissionFailure:
                throw DeviceCommandError(
                    "the cloud at \(cloud) does not allow registration: ask its operator for an account, then todo login")
            case .networkUnavailable:
                throw DeviceCommandError("the cloud at \(cloud) does not answer (\(error.reason))")
            default:
                if error.serverErrorCode == .exists {
                    throw DeviceCommandError("the account '\(flags.account)' already exists at \(cloud): use todo login")
                }
                throw DeviceCommandError("cannot create '\(flags.account)' at \(cloud): \(error.reason)")
            }
        }
        print("Created the account \(flags.account) at \(cloud)")
        try await flags.logIn(password: password)
    }
}
