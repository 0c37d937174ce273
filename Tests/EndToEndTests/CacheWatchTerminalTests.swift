import CloudClient
import CloudModel
import CloudServer
import Foundation
import TestSupport
import XCTest

/// The open app shows what the command line writes to the same device's cache, without a key press (XCTest, so it
/// runs serially beside nothing else; see `TwoTerminalTests`).
final class CacheWatchTerminalTests: XCTestCase {
    func testACommandLineWriteAppearsInTheOpenAppWithoutAKeyPress() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        let tmux = stage.tmux
        tmux.run(["new-session", "-d", "-s", "watch", "-x", "120", "-y", "20", stage.app(account: "alice", device: "main") + "; echo EXIT=$?; sleep 600"])
        let app = "watch:0.0"
        try await tmux.wait(app, "synced")

        // Another shell, the same account and device: `todo add`, then `todo newlist`.
        func cli(_ verb: [String]) -> String {
            ([stage.binary] + verb + [
                "--server", stage.server.baseURL.absoluteString, "--data-dir", stage.directory.appendingPathComponent("devices").path,
                "--account", "alice", "--password", "e2e-password-alice", "--device", "main",
            ]).map { "'\($0)'" }.joined(separator: " ") + "; echo CLI-DONE-$?"
        }
        tmux.run(["split-window", "-v", "-t", "watch", cli(["add", "Added from the shell"]) + "; sleep 600"])
        let shell = "watch:0.1"
        try await tmux.wait(shell, "CLI-DONE-0")
        try await tmux.wait(app, "Added from the shell")

        tmux.run(["respawn-pane", "-k", "-t", shell, cli(["newlist", "Shell list"]) + "; sleep 600"])
        try await tmux.wait(shell, "CLI-DONE-0")
        try await tmux.wait(app, "Shell list")

        // The cloud is busy and asks for a minute: r waits in the background (keys go on), q ends the wait (the
        // pane's 15 s wait for the exit is far shorter than the minute).
        try await CloudClient(baseURL: stage.server.baseURL).injectFault(
            FaultRequest(endpoint: "users/caller", serverErrorCode: .throttled, count: 1, retryAfter: 60))
        tmux.keys(app, "r")
        try await tmux.wait(app, "Refreshing…")
        tmux.keys(app, "c")  // a key during the refresh is handled at once
        try await tmux.wait(app, "Hiding completed todos")
        // Absence has no event: had the fault not struck, "Up to date." would show within this span.
        let waited = await holdsThroughout(0.3) { !tmux.capture(app).contains("Up to date.") }
        XCTAssert(waited, "the refresh did not wait: the fault did not strike")
        tmux.keys(app, "q")
        try await tmux.wait(app, "EXIT=0")
        await stage.server.shutdown()
    }
}
