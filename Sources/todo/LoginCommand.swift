import ArgumentParser
import CommandLineSupport
import Foundation

/// `todo login URL --account NAME [--device NAME] [--ca-file FILE]`: signs this device in and saves the login.
struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Sign this device in to a cloud and save the login (later verbs and the app need no --server).",
        discussion: """
            Asks the password without echo (or reads $TODO_PASSWORD). Never creates an account: a wrong password or \
            an unknown account is an error (todo signup creates one where the cloud allows it).
            """)

    @OptionGroup var flags: LoginFlags

    func run() async throws {
        let password = try PasswordPrompt.password("Password for \(flags.account) at \(flags.server.absoluteString): ")
        try await flags.logIn(password: password)
    }
}
