import CloudClient
import CloudServer
import Foundation
import HostileTextSupport
import TLSTestSupport
import TestSupport
import Testing
import Terminal
import TodoApp
import TodoPlanning
import TodoStore
import TodoSync
import TodoUI

/// The saved login's configuration file, choosing the device from flags and the file, and the embedded cloud's
/// bootstrap, against a real cloud where a cloud is involved.
@Suite("Saved login, configuration file, local bootstrap", .serialized)
struct SavedLoginTests {
    func directory() -> URL {
        let url = ScratchDirectory.path("login")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func mode(_ url: URL) throws -> Int {
        ((try FileManager.default.attributesOfItem(atPath: url.path))[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    /// The error reading `text` as the configuration file gives.
    func configError(_ text: String) throws -> ConfigFileError? {
        let folder = directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = ConfigFile(directory: folder)
        try Data(text.utf8).write(to: file.url)
        do {
            _ = try file.savedLogin()
            return nil
        } catch {
            return error
        }
    }

    @Test func aSavedLoginIsWrittenPrivatelyAndReadBack() throws {
        let folder = directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = ConfigFile(directory: folder.appendingPathComponent("cloudtodo"))
        #expect(try file.savedLogin() == nil)
        let login = SavedLogin(
            server: URL(string: "https://todo.example.org:8443")!, account: "alice", device: "laptop", caFile: "/etc/ca \"quoted\".pem")
        try file.save(login)
        #expect(try file.savedLogin() == login)
        #expect(try mode(file.url) == 0o600)
        #expect(try mode(file.url.deletingLastPathComponent()) == 0o700)
        let text = try String(contentsOf: file.url, encoding: .utf8)
        #expect(text.contains("[login]") && text.contains("alice"), "\(text)")
        // Without the optional keys.
        try file.save(SavedLogin(server: URL(string: "http://127.0.0.1:9000")!, account: "bob"))
        #expect(try file.savedLogin() == SavedLogin(server: URL(string: "http://127.0.0.1:9000")!, account: "bob"))
        // A value that could not be read back is refused before anything is written.
        #expect(throws: ConfigFileError.self) {
            try file.save(SavedLogin(server: URL(string: "http://127.0.0.1:9000")!, account: "bob", caFile: "/ca\n[x]"))
        }
        #expect(try file.savedLogin()?.account == "bob")
        #expect(file.forgetLogin())
        #expect(try file.savedLogin() == nil)
    }

    @Test func theShippedExampleIsAValidConfigurationFile() throws {
        let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Resources/config.toml.example")
        let folder = directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = ConfigFile(directory: folder)
        try FileManager.default.copyItem(at: example, to: file.url)
        let login = try #require(try file.savedLogin())
        #expect(login.server.absoluteString == "https://todo.example.org" && login.account == "alice" && login.device == "laptop")
        #expect(login.caFile == "/home/alice/.config/cloudtodo/ca.pem")
        let settings = try file.settings()
        #expect(settings.view == ViewSettings(sort: "due", start: "todos"))
        #expect(settings.filters == [NamedFilter(name: "garden", text: "+garden due.before:eow"), NamedFilter(name: "work", text: "+work is:open pri:2+")])
        #expect(settings.urgency == ["priority-low": 2] && settings.urgencyCoefficients.priorityLow == 2)
        // Saving the app's view rewrites the file: the coefficients stay.
        try file.savePreferences(view: ViewSettings(sort: "title"), filters: settings.filters)
        #expect(try file.settings().urgency == ["priority-low": 2])
        let unknown = try #require(try configError("[urgency]\ndue = 10\nsoon = 1\n"))
        #expect(unknown.line == 3 && unknown.problem.contains("unknown coefficient 'soon'"), "\(unknown)")
        let notANumber = try #require(try configError("[urgency]\ndue = \"high\"\n"))
        #expect(notANumber.line == 2 && notANumber.problem.contains("'due' in [urgency] must be a number"), "\(notANumber)")
    }

    @Test func viewAndSavedFiltersLiveBesideTheLoginAndOutliveALogout() throws {
        let folder = directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = ConfigFile(directory: folder)
        try file.savePreferences(view: ViewSettings(sort: "priority"), filters: [NamedFilter(name: "errands", text: "+errand \"post office\"")])
        try file.save(SavedLogin(server: URL(string: "https://todo.example.org")!, account: "alice"))
        var settings = try file.settings()
        #expect(settings.login?.account == "alice" && settings.view.sort == "priority")
        #expect(settings.filters == [NamedFilter(name: "errands", text: "+errand \"post office\"")])
        #expect(try mode(file.url) == 0o600)
        #expect(file.forgetLogin())
        settings = try file.settings()
        #expect(settings.login == nil && settings.view.sort == "priority" && settings.filters.count == 1, "a logout keeps the view")

        let badSort = try #require(try configError("[view]\nsort = \"colour\"\n"))
        #expect(badSort.line == 2 && badSort.problem.contains("'sort' in [view] must be one of due, priority, created, title"), "\(badSort)")
        let badFilter = try #require(try configError("[filters]\nwork = 3\n"))
        #expect(badFilter.line == 2 && badFilter.problem.contains("'work' in [filters] must be a string"), "\(badFilter)")
        // A filter that does not parse is told when the file is read, with its name, its line and what is wrong.
        let unparsed = try #require(try configError("[filters]\nhome = \"+home\"\nwork = \"due:someday \\\"late\"\n"))
        #expect(unparsed.line == 3 && unparsed.problem.contains("saved filter 'work' in [filters] cannot be used"), "\(unparsed)")
        let unknownTerm = try #require(try configError("[filters]\nodd = \"colour:blue\"\n"))
        #expect(unknownTerm.line == 2 && unknownTerm.problem.contains("'odd'") && unknownTerm.problem.contains("colour"), "\(unknownTerm)")
        let keys = ConfigFile(directory: folder)
        try Data("[keys]\ntrash = \"x ctrl-d\"\nleave = \"\"\n[colors]\noverdue = \"magenta\"\ntag = \"245\"\n".utf8).write(to: keys.url)
        let configured = try keys.settings()
        #expect(configured.keymap.command(for: .char("x")) == .trash && configured.keymap.command(for: .char("d")) == nil)
        #expect(configured.palette[.overdue] == TerminalColor(parsing: "magenta") && configured.palette[.tag] == .indexed(245))
        try keys.savePreferences(view: ViewSettings(sort: "title"), filters: [])
        #expect(try keys.settings().keys == ["trash": "x ctrl-d", "leave": ""], "saving the view keeps [keys]")

        let twice = try #require(try configError("[keys]\ntrash = \"x\"\nedit = \"x\"\n"))
        #expect(twice.line == 1 && twice.problem.lowercased().contains("x"), "\(twice)")
        let badKey = try #require(try configError("[keys]\ntrash = \"hyper-q\"\n"))
        #expect(badKey.problem.contains("hyper-q"), "\(badKey)")
        let unknownCommand = try #require(try configError("[keys]\nexplode = \"x\"\n"))
        #expect(unknownCommand.line == 2 && unknownCommand.problem.contains("unknown setting 'explode' in [keys]"), "\(unknownCommand)")
        let badColor = try #require(try configError("[colors]\ntag = \"mauve\"\n"))
        #expect(badColor.line == 1 && badColor.problem.contains("mauve"), "\(badColor)")
        let unknownView = try #require(try configError("[view]\ncolour = \"red\"\n"))
        #expect(unknownView.problem.contains("unknown setting 'colour' in [view]"), "\(unknownView)")
    }

    @Test func aHostileConfigurationFileIsAClearErrorNamingTheFileAndLine() throws {
        let garbage = try #require(try configError("[login]\ncloud = \"https://a.example\"\naccount = alice\n"))
        #expect(garbage.line == 3, "\(garbage)")
        #expect(garbage.description.contains("config.toml, line 3"), "\(garbage)")
        #expect(garbage.description.contains("not valid TOML"))

        let wrongType = try #require(try configError("[login]\ncloud = \"https://a.example\"\n\naccount = 42 # a number\n"))
        #expect(wrongType.line == 4 && wrongType.problem.contains("'account' in [login] must be a string, not an integer"), "\(wrongType)")

        let unknown = try #require(try configError("# mine\n[login]\ncloud = \"https://a.example\"\naccount = \"a\"\npasword = \"x\"\n"))
        #expect(unknown.line == 5 && unknown.problem.contains("unknown setting 'pasword'"), "\(unknown)")

        let unknownTable = try #require(try configError("[login]\ncloud = \"https://a.example\"\naccount = \"a\"\n[colours]\nx = 1\n"))
        #expect(unknownTable.line == 4 && unknownTable.problem.contains("unknown setting 'colours'"), "\(unknownTable)")

        let notATable = try #require(try configError("login = \"alice\"\n"))
        #expect(notATable.line == 1 && notATable.problem.contains("must be a table"), "\(notATable)")
        let array = try #require(try configError("[login]\naccount = [ } ]\n"))
        #expect(array.line == 2 && array.problem.contains("an array or inline table"), "\(array)")

        let badURL = try #require(try configError("[login]\ncloud = \"ftp://a.example\"\naccount = \"a\"\n"))
        #expect(badURL.line == 2 && badURL.problem.contains("http:// or https://"), "\(badURL)")

        let missing = try #require(try configError("[login]\ncloud = \"https://a.example\"\n"))
        #expect(missing.problem.contains("no 'account'"), "\(missing)")

        let huge = try #require(try configError("# " + String(repeating: "x", count: ConfigFile.maximumSize) + "\n"))
        #expect(huge.problem.contains("larger than 64 KiB"), "\(huge)")

        let binary = try #require(try configError("[login]\n\u{0}\u{1}\u{2}"))
        #expect(binary.line == 2 && binary.problem.contains("NUL"), "\(binary)")

        let folder = directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let notUTF8 = ConfigFile(directory: folder)
        try Data([0x5B, 0xFF, 0xFE, 0x5D]).write(to: notUTF8.url)
        #expect(throws: ConfigFileError.self) { try notUTF8.savedLogin() }

        // Deep nesting, long keys, odd quoting: an error, never a crash.
        for text in [
            String(repeating: "[", count: 10_000), "a = " + String(repeating: "[", count: 5_000), "\"\u{1B}]0;x\u{7}\" = 1\n",
            "[login]\ncloud = \"https://a.example\"\naccount = \"\"\n", "[login]\n[login]\n",
        ] {
            #expect(try configError(text) != nil, "\(text.prefix(30))")
        }
        let header = try #require(try configError("[login]\ncloud = \"https://a.example\"\n\n[[[x]]]\n"))
        #expect(header.line == 4 && header.problem.contains("without a name"), "\(header)")
    }

    /// Random text built from TOML's punctuation, keys and values: every one is read or refused, none crashes.
    @Test func randomConfigurationTextNeverCrashes() throws {
        let folder = directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = ConfigFile(directory: folder)
        let pieces = [
            "[", "]", "[[", "]]", "{", "}", "=", ".", ",", "#", "\"", "'", "\"\"\"", "'''", "\\", "\n", "\r\n", " ", "\t", "login",
            "cloud", "account", "device", "ca-file", "\"https://a.example\"", "'x'", "1", "-0", "0x1F", "1e400", "nan", "inf", "true",
            "1979-05-27T07:32:00Z", "07:32:00", "é", "中", "\u{1B}", "\u{7F}", "\u{85}", "\u{2028}", "\u{FEFF}", "\u{202E}", "+", "_",
        ]
        var generator = SeededGenerator(seed: 0xC0FFEE)
        var refused = 0
        for _ in 0..<1_500 {
            let count = Int(generator.next() % 24) + 1
            let text = (0..<count).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }.joined()
            try Data(text.utf8).write(to: file.url)
            do {
                _ = try file.savedLogin()
            } catch {
                refused += 1
                #expect(error.description.contains(file.url.path))
            }
        }
        #expect(refused > 1_000, "most random text is refused: \(refused)")
    }

    @Test func theSavedLoginNamesTheCloudUnlessTheFlagsNameAnother() async throws {
        let data = directory()
        defer { try? FileManager.default.removeItem(at: data) }
        let environment = ["USER": "someone", "HOME": data.path]
        // Nothing saved: the embedded cloud as $USER.
        let plain = try DeviceChoice(dataDirectory: data, environment: ProcessEnvironment(environment)).resolve()
        #expect(plain.options.isDefaultLocalServer && plain.options.account == "someone" && plain.source == .embedded)

        // Three real PEM authorities: resolving a choice makes its transport, which reads the file it trusts.
        let authority = try await TestCertificateAuthority(in: data.appendingPathComponent("authority"))
        let (savedCA, environmentCAFile, flagCAFile) = (data.path + "/ca.pem", data.path + "/env.pem", data.path + "/flag.pem")
        for file in [savedCA, environmentCAFile, flagCAFile] { try FileManager.default.copyItem(atPath: authority.certificate.path, toPath: file) }
        let configFile = ConfigFile(directory: data.appendingPathComponent("config"))
        try configFile.save(SavedLogin(server: URL(string: "https://todo.example.org")!, account: "alice", device: "laptop", caFile: savedCA))
        let saved = try DeviceChoice(dataDirectory: data, environment: ProcessEnvironment(environment)).resolve()
        #expect(saved.options.server.absoluteString == "https://todo.example.org")
        #expect(saved.options.account == "alice" && saved.options.device == "laptop" && saved.trust.caFile == savedCA)
        #expect(saved.source == .savedLogin(configFile.url.path))

        // Flags override; the same cloud spelled differently keeps the saved account and trust.
        let sameCloud = try DeviceChoice(server: URL(string: "HTTPS://todo.example.org:443/")!, device: "phone", dataDirectory: data, environment: ProcessEnvironment(environment)).resolve()
        #expect(sameCloud.options.account == "alice" && sameCloud.options.device == "phone" && sameCloud.trust.caFile == savedCA)
        let environmentCA = try DeviceChoice(dataDirectory: data, environment: ProcessEnvironment(environment.merging(["TODO_CA_FILE": environmentCAFile]) { $1 })).resolve()
        #expect(environmentCA.trust.caFile == environmentCAFile)
        let flagCA = try DeviceChoice(caFile: flagCAFile, dataDirectory: data, environment: ProcessEnvironment(environment.merging(["TODO_CA_FILE": environmentCAFile]) { $1 })).resolve()
        #expect(flagCA.trust.caFile == flagCAFile)

        // Another cloud named on the command line takes nothing from the saved login.
        let other = try DeviceChoice(server: URL(string: "http://127.0.0.1:9999")!, dataDirectory: data, environment: ProcessEnvironment(environment)).resolve()
        #expect(other.options.account == "someone" && other.options.device == "main" && other.trust.caFile == nil && other.source == .flags)

        // A broken file stops every verb with its words.
        try Data("[login\n".utf8).write(to: configFile.url)
        #expect(throws: ConfigFileError.self) { try DeviceChoice(dataDirectory: data, environment: ProcessEnvironment(environment)).resolve() }
    }

    @Test func theEmbeddedCloudCreatesTheAccountOnFirstUseWithAKeptPassword() async throws {
        let cloud = try await AppCloud.start()
        let data = directory()
        defer { try? FileManager.default.removeItem(at: data) }
        let options = DeviceOptions(
            account: "kim", server: cloud.server.baseURL, dataDirectory: data, startsLocalServer: false, environment: [:])
        let session = try await LocalCloudBootstrap.openCreatingAccount(options)
        #expect(session.credentials != nil)
        #expect(try mode(options.passwordFile) == 0o600)
        let password = try String(contentsOf: options.passwordFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(password.count == 24)
        await session.close()
        // The generated password is the account's: a plain sign-in with it works.
        _ = try await CloudClient(baseURL: cloud.server.baseURL).signIn(account: "kim", password: password, deviceName: "check")

        // A password kept by the previous version (under the address as typed) is found and moved.
        let port = try #require(cloud.server.baseURL.port)
        var lee = options
        lee.account = "lee"
        _ = try await CloudClient(baseURL: cloud.server.baseURL).createAccount(account: "lee", password: "lee-kept-password")
        let legacy = data.appendingPathComponent("config/passwords/127.0.0.1-\(port)/lee")
        try SecretFile.write(Data("lee-kept-password\n".utf8), to: legacy)
        lee.server = URL(string: "http://localhost:\(port)")!
        let opened = try await LocalCloudBootstrap.openCreatingAccount(lee)
        #expect(opened.credentials != nil)
        #expect(!FileManager.default.fileExists(atPath: legacy.path))
        #expect(try String(contentsOf: lee.passwordFile, encoding: .utf8) == "lee-kept-password\n")
        await opened.close()
        await cloud.shutdown()
    }

    /// Refuses every request and counts them: a command that reads the cache only must make none.
    private final class NoRequests: HTTPTransport, @unchecked Sendable {
        private let lock = NSLock()
        private var made = 0
        var count: Int { lock.withLock { made } }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            lock.withLock { made += 1 }
            throw TransportError("no request was expected: \(request.method) \(request.url.path)")
        }

        func prepare() { lock.withLock { made += 1 } }
    }

    /// `--offline` reads the cache as it is: no cloud is asked, started (the embedded one) or signed in to, and no
    /// client is made ahead; with a kept session the cache opens signed in, without one signed out.
    @Test func readingTheCacheOnlyNeitherAsksNorStartsTheEmbeddedCloud() async throws {
        let data = directory()
        defer { try? FileManager.default.removeItem(at: data) }
        let transport = NoRequests()
        var offline = DeviceOptions(account: "ana", dataDirectory: data, startsLocalServer: true, transport: transport, environment: [:])
        offline.readsCacheOnly = true
        #expect(offline.isDefaultLocalServer)
        let signedOut = try await DeviceOpening.open(offline)
        await signedOut.engine.loadFromStore()
        #expect(signedOut.credentials == nil)
        #expect(FileManager.default.fileExists(atPath: offline.cacheFile.path), "the cache was opened")
        await signedOut.close()
        #expect(transport.count == 0)
        #expect(!FileManager.default.fileExists(atPath: offline.passwordFile.path), "no account was made for a read")

        // With a session kept from the zero set-up, the same read opens signed in, still without a request.
        let cloud = try await AppCloud.start()
        var online = DeviceOptions(account: "ana", server: cloud.server.baseURL, dataDirectory: data, startsLocalServer: false, environment: [:])
        let first = try await LocalCloudBootstrap.openCreatingAccount(online)
        let kept = try #require(first.credentials)
        await first.close()
        online.transport = transport
        online.readsCacheOnly = true
        let reading = try await DeviceOpening.open(online)
        #expect(reading.credentials?.ckWebAuthToken == kept.ckWebAuthToken)
        await reading.close()
        #expect(transport.count == 0)

        // Another device of the account has no session, and a password is given: still no sign-in, but signed out
        // with the command that signs it in.
        var other = online
        other.device = "tablet"
        other.password = "any-password"
        let unsigned = try await DeviceOpening.open(other)
        #expect(unsigned.credentials == nil)
        let status = await unsigned.engine.status()
        #expect(status.connection == .signedOut && status.lastError?.contains("todo login") == true, "\(String(describing: status.lastError))")
        await unsigned.close()
        #expect(transport.count == 0)
        await cloud.shutdown()
    }

    @Test func aRemoteCloudThatRefusesTheKeptTokenAsksForTodoLoginAndKeepsTheOutbox() async throws {
        let cloud = try await AppCloud.start()
        let data = directory()
        defer { try? FileManager.default.removeItem(at: data) }
        _ = try await CloudClient(baseURL: cloud.server.baseURL).createAccount(account: "max", password: "max-password")
        let options = DeviceOptions(account: "max", server: cloud.server.baseURL, dataDirectory: data, environment: [:])
        let kept = try await DeviceSession.signIn(options, password: "max-password")
        try await CloudClient(baseURL: cloud.server.baseURL, authToken: kept.ckWebAuthToken).signOut()

        let session = try await DeviceOpening.open(options)
        await session.engine.loadFromStore()
        try await session.engine.add(title: "kept while signed out")
        await session.engine.sync(.manualRefresh)
        let status = await session.engine.status()
        #expect(status.connection == .signedOut)
        #expect(status.lastError?.contains("todo login \(cloud.server.baseURL.absoluteString) --account max") == true, "\(String(describing: status.lastError))")
        #expect(status.pendingCount == 1)
        await session.close()
        #expect(DeviceSession.keptCredentials(options) == nil, "the dead token is forgotten")
        // No account is created on a cloud other than the embedded one: without a session and a password, words.
        await #expect(throws: DeviceSessionError.self) { try await DeviceOpening.open(options) }
        await cloud.shutdown()
    }
}
