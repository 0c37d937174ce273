import CloudClient
import CloudModel
import CloudServer
import Foundation
import Logging
import Testing

/// `todo login`, `todo logout` and `todo signup` on the real binary against a real cloud; the password comes from
/// `$TODO_PASSWORD` as a script gives it.
@Suite("Login, logout and signup on the command line", .serialized)
struct LoginCommandTests {
    /// A device directory of its own inside the stage.
    func deviceDirectory(_ stage: E2EStage) -> String {
        stage.directory.appendingPathComponent("login-\(UUID().uuidString.prefix(8))").path
    }

    @Test func aLoginIsSavedLaterVerbsNeedNoServerAndLogoutEndsIt() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        let cli = TodoCommandLine(stage: stage)
        let data = deviceDirectory(stage)
        let url = stage.server.baseURL.absoluteString
        let port = try #require(stage.server.baseURL.port)

        let login = try await cli.run(["login", url, "--account", "alice", "--data-dir", data], environment: ["TODO_PASSWORD": "e2e-password-alice"])
        #expect(login.status == 0, "\(login.allText)")
        #expect(login.output.contains("Logged in to \(url) as alice on device main"), "\(login.output)")
        let config = URL(fileURLWithPath: data).appendingPathComponent("config/config.toml")
        let attributes = try FileManager.default.attributesOfItem(atPath: config.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try String(contentsOf: config, encoding: .utf8).contains(url))

        // Logging in again replaces the session: the earlier token ends at the cloud.
        let sessionPath = URL(fileURLWithPath: data).appendingPathComponent("config/sessions/http-localhost-\(port)/alice/main.json")
        let first = try JSONDecoder().decode(Credentials.self, from: Data(contentsOf: sessionPath))
        let again = try await cli.run(["login", url, "--account", "alice", "--data-dir", data], environment: ["TODO_PASSWORD": "e2e-password-alice"])
        #expect(again.status == 0, "\(again.allText)")
        await #expect(throws: CloudError.self) { try await CloudClient(baseURL: stage.server.baseURL, authToken: first.ckWebAuthToken).caller() }

        // No --server, no --account, no password: the saved login.
        let noPassword = ["TODO_PASSWORD": ""]
        let added = try await cli.run(["add", "Milk", "--data-dir", data], environment: noPassword)
        #expect(added.status == 0, "\(added.allText)")
        let listed = try await cli.run(["list", "--data-dir", data], environment: noPassword)
        #expect(listed.status == 0 && listed.output.contains("Milk"), "\(listed.allText)")
        let status = try await cli.run(["status", "--data-dir", data], environment: noPassword)
        #expect(status.output.contains(url) && status.output.contains("saved login"), "\(status.output)")
        #expect(status.output.contains("account           alice"), "\(status.output)")
        // The same cloud spelled `localhost` is the same login.
        let spelled = try await cli.run(["list", "--server", "http://localhost:\(port)/", "--data-dir", data], environment: noPassword)
        #expect(spelled.status == 0 && spelled.output.contains("Milk"), "\(spelled.allText)")

        // Logout revokes the session at the cloud and forgets the login and its token.
        let sessionFile = URL(fileURLWithPath: data).appendingPathComponent("config/sessions/http-localhost-\(port)/alice/main.json")
        let kept = try JSONDecoder().decode(Credentials.self, from: Data(contentsOf: sessionFile))
        let logout = try await cli.run(["logout", "--data-dir", data], environment: noPassword)
        #expect(logout.status == 0 && logout.output.contains("the session was revoked"), "\(logout.allText)")
        #expect(!FileManager.default.fileExists(atPath: config.path))
        #expect(!FileManager.default.fileExists(atPath: sessionFile.path))
        await #expect(throws: CloudError.self) { try await CloudClient(baseURL: stage.server.baseURL, authToken: kept.ckWebAuthToken).caller() }
        let after = try await cli.run(["list", "--server", url, "--account", "alice", "--data-dir", data], environment: noPassword)
        // Signed out, the cache answers with one line saying so and the command to run (it names the data directory).
        #expect(after.status == 0 && after.output.contains("Milk"), "\(after.allText)")
        #expect(after.errors.contains("not signed in to \(url) as 'alice': run todo login \(url) --account alice --data-dir \(data)"), "\(after.allText)")
        let edit = try await cli.run(["add", "Eggs", "--server", url, "--account", "alice", "--data-dir", data], environment: noPassword)
        #expect(edit.status == 1 && edit.errors.contains("Not signed in to \(url) as 'alice'"), "\(edit.allText)")
        await stage.server.shutdown()
    }

    @Test func aWrongPasswordOrAnUnknownAccountIsAnErrorAndCreatesNothing() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        let cli = TodoCommandLine(stage: stage)
        let data = deviceDirectory(stage)
        let url = stage.server.baseURL.absoluteString

        let wrong = try await cli.run(["login", url, "--account", "alice", "--data-dir", data], environment: ["TODO_PASSWORD": "not-her-password"])
        #expect(wrong.status == 1, "\(wrong.allText)")
        #expect(wrong.errors.contains("wrong password or no such account"), "\(wrong.errors)")
        let typo = try await cli.run(["login", url, "--account", "alcie", "--data-dir", data], environment: ["TODO_PASSWORD": "e2e-password-alice"])
        #expect(typo.status == 1 && typo.errors.contains("no account was created"), "\(typo.allText)")
        #expect(!FileManager.default.fileExists(atPath: URL(fileURLWithPath: data).appendingPathComponent("config/config.toml").path))
        // A verb with a typo in --account against this cloud does not make an account either.
        let verb = try await cli.run(
            ["add", "x", "--server", url, "--account", "alcie", "--password", "e2e-password-alice", "--data-dir", data])
        #expect(verb.status == 1 && verb.errors.contains("wrong password or no such account"), "\(verb.allText)")
        // The cloud never heard of `alcie`: creating it now works.
        _ = try await CloudClient(baseURL: stage.server.baseURL).createAccount(account: "alcie", password: "created-only-now")
        await stage.server.shutdown()
    }

    @Test func signupCreatesWhereRegistrationIsOpenAndSaysSoWhereItIsNot() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        let cli = TodoCommandLine(stage: stage)
        let data = deviceDirectory(stage)
        let url = stage.server.baseURL.absoluteString
        let password = ["TODO_PASSWORD": "newbie-password"]

        let signup = try await cli.run(["signup", url, "--account", "newbie", "--device", "laptop", "--data-dir", data], environment: password)
        #expect(signup.status == 0, "\(signup.allText)")
        #expect(signup.output.contains("Created the account newbie") && signup.output.contains("Logged in"), "\(signup.output)")
        let added = try await cli.run(["add", "First todo", "--data-dir", data], environment: ["TODO_PASSWORD": ""])
        #expect(added.status == 0, "\(added.allText)")
        let again = try await cli.run(["signup", url, "--account", "newbie", "--data-dir", deviceDirectory(stage)], environment: password)
        #expect(again.status == 1 && again.errors.contains("already exists"), "\(again.allText)")

        // A cloud with registration closed.
        let closed = try await CloudServer.start(
            ServerConfiguration(
                port: 0, dataDirectory: stage.directory.appendingPathComponent("closed-cloud"), openRegistration: false,
                logLevel: .critical, passwordHashCost: 1))
        let refused = try await cli.run(
            ["signup", closed.baseURL.absoluteString, "--account", "newbie", "--data-dir", deviceDirectory(stage)], environment: password)
        #expect(refused.status == 1 && refused.errors.contains("does not allow registration"), "\(refused.allText)")
        await closed.shutdown()
        await stage.server.shutdown()
    }

    @Test func aBrokenConfigurationFileIsNamedWithItsLineAndLogoutClearsIt() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        let cli = TodoCommandLine(stage: stage)
        let data = deviceDirectory(stage)
        let config = URL(fileURLWithPath: data).appendingPathComponent("config/config.toml")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("[login]\ncloud = \"http://127.0.0.1:1\"\naccount = true\n".utf8).write(to: config)

        let listed = try await cli.run(["list", "--data-dir", data])
        #expect(listed.status == 1, "\(listed.allText)")
        #expect(listed.errors.contains("\(config.path), line 3"), "\(listed.errors)")
        #expect(listed.errors.contains("'account' in [login] must be a string"), "\(listed.errors)")
        let logout = try await cli.run(["logout", "--data-dir", data])
        #expect(logout.status == 0, "\(logout.allText)")
        #expect(!FileManager.default.fileExists(atPath: config.path))
        await stage.server.shutdown()
    }
}
