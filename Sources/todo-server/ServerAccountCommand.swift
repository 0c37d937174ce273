import ArgumentParser
import CloudServer
import CommandLineSupport
import Foundation
import Terminal

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `todo server account add|list|remove|passwd`: the operator's account tools, on the cloud's data directory or its
/// PostgreSQL database (also while the cloud runs).
struct ServerAccountCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "account",
        abstract: "Manage the cloud's accounts in --data-dir D, or in the --database-url database (works while the cloud runs).",
        subcommands: [Add.self, List.self, Remove.self, Passwd.self]
    )

    /// The cloud's data directory: `todo server`'s own `--data-dir` (an option of the same name here would never be
    /// set: ArgumentParser gives it to the `server` command).
    static func dataDirectory(_ server: ServerCommand) -> URL {
        server.dataDir.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? ServerConfiguration.defaultDataDirectory
    }

    /// `todo server account add NAME`.
    struct Add: AsyncParsableCommand {
        // Named here, as every command is: a name derived from the type is demangled at every start of `todo`.
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Create an account (password from $TODO_PASSWORD, else asked twice; --password-cost N sets the yescrypt cost).")

        @ParentCommand var server: ServerCommand
        @Argument(help: "The account name.") var name: String

        func run() async throws {
            let password = try PasswordPrompt.password("Password: ", confirm: true)
            try await OperatorFailure.report {
                _ = try await AccountAdministration.add(
                    dataDirectory: ServerAccountCommand.dataDirectory(server), storage: try server.storage, account: name, password: password,
                    cost: server.passwordCost)
            }
            print("Created the account \(name)")
        }
    }

    /// `todo server account list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the accounts with their signed-in devices and last use.")

        @ParentCommand var server: ServerCommand

        func run() async throws {
            let accounts = try await OperatorFailure.report {
                try await AccountAdministration.list(dataDirectory: ServerAccountCommand.dataDirectory(server), storage: try server.storage)
            }
            guard !accounts.isEmpty else {
                print("No accounts yet: add one with todo server account add NAME")
                return
            }
            let width = max(7, accounts.map(\.account.count).max() ?? 0)
            printTrusted("ACCOUNT".padding(toLength: width, withPad: " ", startingAt: 0) + "  DEVICES  LAST USED         CREATED")
            let now = Date()
            for account in accounts {
                let devices = String(account.signedInDevices).padding(toLength: 7, withPad: " ", startingAt: 0)
                let lastUsed = (account.lastUsed.map { DeviceTimes.ago($0, now: now) } ?? "never").padding(toLength: 16, withPad: " ", startingAt: 0)
                print("\(account.account.padding(toLength: width, withPad: " ", startingAt: 0))  \(devices)  \(lastUsed)  \(DeviceTimes.day(account.created))")
            }
        }
    }

    /// `todo server account remove NAME`.
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Delete an account and all its data (asks unless --yes).")

        @ParentCommand var server: ServerCommand
        @Argument(help: "The account name.") var name: String
        @Flag(help: "Do not ask for confirmation.") var yes = false

        func run() async throws {
            if !yes {
                FileHandle.standardError.write(Data("Delete the account \(sanitize(name)) and all its todos, lists and shares? Type its name to confirm: ".utf8))
                guard readLine(strippingNewline: true) == name else { throw OperatorFailure("not confirmed; nothing was deleted") }
            }
            try await OperatorFailure.report {
                try await AccountAdministration.remove(dataDirectory: ServerAccountCommand.dataDirectory(server), storage: try server.storage, account: name)
            }
            print("Deleted the account \(name) and its data")
        }
    }

    /// `todo server account passwd NAME`.
    struct Passwd: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "passwd",
            abstract: "Set an account's password and sign all its devices out (password from $TODO_PASSWORD, else asked twice).")

        @ParentCommand var server: ServerCommand
        @Argument(help: "The account name.") var name: String

        func run() async throws {
            let password = try PasswordPrompt.password("Password: ", confirm: true)
            try await OperatorFailure.report {
                try await AccountAdministration.setPassword(
                    dataDirectory: ServerAccountCommand.dataDirectory(server), storage: try server.storage, account: name, password: password,
                    cost: server.passwordCost)
            }
            print("Changed the password of \(name); its devices must sign in again")
        }
    }
}

/// An operator tool's failure, in words.
struct OperatorFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }

    /// Runs `body`, turning the administration's failures into words.
    static func report<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let failure as AccountAdministration.Failure {
            throw OperatorFailure(failure.description)
        }
    }
}
