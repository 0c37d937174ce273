import CloudClient
import CloudServer
import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif
import Logging
import XCTest

/// Drives the real `todo` binary in tmux: two panes, two devices of one account, one cloud.
///
/// The tmux tests that time what a person sees are XCTest cases: `swift test` runs XCTest on its own and serially,
/// before Swift Testing runs everything else in parallel, so the times they check are not those of a starved machine.
final class TwoTerminalTests: XCTestCase {
    func testEditsInOnePaneShowInTheOtherWithoutAKeyPress() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        let tmux = stage.tmux
        func device(_ name: String) -> String {
            // After the app exits, the pane reports its exit code and whether the terminal is back in cooked mode.
            stage.app(account: "alice", device: name)
                + "; echo EXIT=$?; echo \"TTY $(stty -a | tr ' ;' '\\n\\n' | grep -xE -- '-?(icanon|echo)' | tr '\\n' ' ')END\"; sleep 600"
        }
        tmux.run(["new-session", "-d", "-s", "e2e", "-x", "160", "-y", "20", device("laptop")])
        let laptop = "e2e:0.0"
        try await tmux.wait(laptop, "synced")  // the launch pass is over
        tmux.run(["split-window", "-h", "-t", "e2e", device("tablet")])
        let tablet = "e2e:0.1"
        try await tmux.wait(tablet, "synced")

        // Warm-up, not timed: a first change travels while the devices' push channels may still be registering.
        try await tmux.submit(laptop, key: "a", opens: "New todo", text: "Warm-up")
        try await tmux.wait(tablet, "Warm-up")
        tmux.keys(laptop, "d")
        try await tmux.wait(laptop, "y/n")
        tmux.keys(laptop, "y")
        try await tmux.wait(tablet, "No todos")

        // Add on the laptop; the tablet shows it by itself.
        try await tmux.submit(laptop, key: "a", opens: "New todo", text: "E2E milk 牛奶")
        try await tmux.wait(tablet, "E2E milk 牛奶")

        // Complete.
        tmux.keys(laptop, "Space")
        try await tmux.wait(tablet, "[x] E2E milk")

        // Edit the title in the form: Ctrl-U clears the line, then type the new title.
        try await tmux.retitle(tablet, to: "E2E oat milk")
        try await tmux.wait(laptop, "E2E oat milk")

        // Trash (own private todo: delete, after confirming).
        tmux.keys(laptop, "d")
        try await tmux.wait(laptop, "y/n")
        tmux.keys(laptop, "y")
        try await tmux.wait(tablet, "No todos")

        // Quit both: each exits 0 and leaves the terminal in cooked mode with echo.
        tmux.keys(laptop, "q")
        tmux.keys(tablet, "q")
        for pane in [laptop, tablet] {
            try await tmux.wait(pane, "EXIT=0")
            try await tmux.wait(pane, "END")
            let screen = tmux.capture(pane)
            XCTAssert(screen.contains("icanon echo") || screen.contains("echo icanon"), "terminal not restored:\n\(screen)")
            XCTAssert(!screen.contains("-icanon") && !screen.contains("-echo"), "terminal not restored:\n\(screen)")
        }
        await stage.server.shutdown()
    }
}

/// Drives the real binary in tmux with two accounts: alice shares a list with bob, bob accepts and edits,
/// alice lowers him to read-only, then stops sharing.
final class TwoAccountTerminalTests: XCTestCase {
    func testASharedListReachesTheOtherAccountAndFollowsItsAccess() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        let tmux = stage.tmux
        func app(_ account: String) -> String { stage.app(account: account, device: "main") + "; echo EXIT=$?; sleep 600" }
        tmux.run(["new-session", "-d", "-s", "share", "-x", "160", "-y", "20", app("bob")])
        let bob = "share:0.0"
        try await tmux.wait(bob, "synced")  // the launch pass is over
        tmux.run(["split-window", "-h", "-t", "share", app("alice")])
        let alice = "share:0.1"
        try await tmux.wait(alice, "synced")

        // Alice makes a list with a todo and shares it with bob, read-write.
        try await tmux.submit(alice, key: "n", opens: "New list", text: "Groceries")
        try await tmux.wait(alice, "Groceries · 0 open")
        try await tmux.submit(alice, key: "a", opens: "New todo · Todos › Groceries", text: "Apples")
        try await tmux.wait(alice, "Groceries · 1 open")
        tmux.keys(alice, "g")
        try await tmux.submit(alice, key: "s", opens: "Share 'Groceries'", text: "bob")
        try await tmux.wait(alice, "invited")
        tmux.keys(alice, "Escape")

        // Bob's header announces the invitation by itself; he accepts and the list shows on his Shared tab.
        try await tmux.wait(bob, "1 invitation (i)")
        tmux.keys(bob, "i")
        try await tmux.wait(bob, "'Groceries' from alice")
        tmux.keys(bob, "Enter")
        tmux.keys(bob, "Tab")
        try await tmux.wait(bob, "Apples")
        try await tmux.wait(bob, "alice's · read-write")

        // Bob completes the todo; alice's pane shows it without a key press.
        tmux.keys(bob, "j")
        tmux.keys(bob, "Space")
        try await tmux.wait(alice, "[x] Apples")

        // Alice lowers bob to read-only: bob's pane shows the lock and refuses edits with the reason.
        tmux.keys(alice, "s")
        try await tmux.wait(alice, "People")
        tmux.keys(alice, "Down")
        tmux.keys(alice, "p")
        try await tmux.wait(alice, "bob is now read-only")
        tmux.keys(alice, "Escape")
        try await tmux.wait(bob, "alice's · read-only")
        tmux.keys(bob, "Space")
        try await tmux.wait(bob, "Shared with you read-only: only its owner can change it")

        // Alice stops sharing: the list leaves bob's device.
        tmux.keys(alice, "s")
        try await tmux.wait(alice, "Share 'Groceries'")
        tmux.keys(alice, "C-x")
        try await tmux.wait(alice, "Stop sharing 'Groceries' with everyone? y/n")
        tmux.keys(alice, "y")
        try await tmux.wait(bob, "Lists others share with you appear here.")

        tmux.keys(alice, "q")
        tmux.keys(bob, "q")
        for pane in [alice, bob] { try await tmux.wait(pane, "EXIT=0") }
        await stage.server.shutdown()
    }
}

/// What an end-to-end test runs on: the real cloud on a loopback port, a temporary data directory, a private tmux.
struct E2EStage {
    let binary: String
    let directory: URL
    let server: RunningCloudServer
    let tmux = Tmux()

    /// The accounts every stage has, each with the password `e2e-password-NAME`.
    static let accounts = ["alice", "bob", "mallory"]

    /// A cloud with `accounts`, and the binary to drive against it.
    static func start() async throws -> E2EStage {
        let binary = try TodoBinary.path()
        let directory = ScratchDirectory.path("e2e")
        // A port below the kernel's ephemeral range (32768 and up), where no other test's port-0 bind can land: once
        // this cloud shuts down, its port stays free, so "the cloud is out of reach" is what a device meets there.
        var server: RunningCloudServer?
        var lastError: (any Error)?
        for _ in 0..<20 where server == nil {
            do {
                server = try await CloudServer.start(
                    ServerConfiguration(
                        port: Int.random(in: 20_000..<32_000), dataDirectory: directory.appendingPathComponent("cloud"),
                        openRegistration: true, enableFaults: true, logLevel: .critical, passwordHashCost: 1))
            } catch {
                lastError = error
            }
        }
        guard let server else { throw lastError ?? E2EError("no port for the stage's cloud") }
        // Devices sign in to accounts that exist (only the embedded local cloud creates them on first use).
        let client = CloudClient(baseURL: server.baseURL)
        for account in accounts { _ = try await client.createAccount(account: account, password: "e2e-password-\(account)") }
        return E2EStage(binary: binary, directory: directory, server: server)
    }

    /// The shell command that opens the app for an account and device against this cloud (or `through` another
    /// address of it), in UTF-8 (`environment`, e.g. `["LC_ALL=C"]`, is set after these defaults and wins over them).
    func app(account: String, device: String, environment: [String] = [], through: URL? = nil) -> String {
        let words =
            ["env", "LANG=C.UTF-8", "TERM=xterm-256color"] + environment + [
                binary, "--server", (through ?? server.baseURL).absoluteString, "--data-dir",
                directory.appendingPathComponent("devices").path, "--account", account, "--password", "e2e-password-\(account)",
                "--device", device,
            ]
        return words.map { "'\($0)'" }.joined(separator: " ")
    }

    /// Stops tmux and removes the files (the server is shut down by the test, which can await).
    func tearDown() {
        tmux.run(["kill-server"])
        try? FileManager.default.removeItem(atPath: "/tmp/tmux-\(getuid())/\(tmux.socket)")
        try? FileManager.default.removeItem(at: directory)
    }
}

/// The `todo` executable built beside this test bundle.
enum TodoBinary {
    static func path() throws -> String {
        let here = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        var directory = here.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("todo").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        throw E2EError("the todo executable was not built next to the tests (\(here.path)); run `swift build` first")
    }
}

/// A private tmux server for one test.
final class Tmux: Sendable {
    let socket = "cloudtodo-e2e-\(UUID().uuidString.prefix(8))"

    /// Runs a tmux command and returns what it printed. Output goes through a file, not a pipe (the tmux
    /// server a command starts inherits the descriptors), and the child is reaped with waitpid directly.
    @discardableResult
    func run(_ arguments: [String]) -> String {
        let outputPath = ScratchDirectory.path("tmux").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // The tmux server outlives this call: it must hold no socket of the test process.
        InheritedDescriptors.closeInChild(&actions)
        // The test process's threads block most signals, and a spawned child inherits that mask: the tmux server
        // and every pane would then ignore SIGHUP, and kill-server would leave them running. Start with none blocked.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGHUP, SIGINT, SIGTERM, SIGPIPE, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = (["tmux", "-L", socket] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawnp(&pid, "tmux", &actions, &attributes, argv, environ) == 0 else { return "tmux could not be started" }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    }

    func keys(_ pane: String, _ key: String) { run(["send-keys", "-t", pane, key]) }

    func type(_ pane: String, _ text: String) { run(["send-keys", "-t", pane, "-l", text]) }

    func capture(_ pane: String) -> String { run(["capture-pane", "-p", "-t", pane]) }

    /// Presses `key`, waits until the pane shows the form or dialog `opens`, types `text` and presses Enter.
    func submit(_ pane: String, key: String, opens: String, text: String) async throws {
        keys(pane, key)
        try await wait(pane, opens)
        type(pane, text)
        keys(pane, "Enter")
    }

    /// Opens the selected todo's edit form (`e`), clears the title (Ctrl-U), types `title` and saves it.
    func retitle(_ pane: String, to title: String) async throws {
        keys(pane, "e")
        try await wait(pane, "Edit todo")
        keys(pane, "C-u")
        type(pane, title)
        keys(pane, "Enter")
    }

    /// Watches the pane for `seconds` and answers whether `text` stayed off it throughout: for what must not happen
    /// after a key (an echo, an exit), where no later screen would show that the key was read at all.
    func neverShows(_ pane: String, _ text: String, within seconds: Double) async -> Bool {
        await !eventually(seconds) { capture(pane).contains(text) }
    }

    /// Waits until the pane shows `text` (the event a person waits for; how fast is for the benchmarks). Fails after
    /// `timeout` seconds with the screen.
    func wait(_ pane: String, _ text: String, timeout: Double = 15) async throws {
        guard await eventually(timeout, { capture(pane).contains(text) }) else {
            throw E2EError("pane \(pane) never showed '\(text)'; it shows:\n\(capture(pane))")
        }
    }
}

/// An end-to-end failure, with what the screen showed.
struct E2EError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
