import CloudClient
import CloudModel
import CloudServer
import Foundation
import XCTest

/// The open app shows what the command line writes to the same device's cache, without a key press (XCTest, so it
/// runs serially beside nothing else; see `TwoTerminalTests`).
final class CacheWatchTerminalTests: XCTestCase {
    func testACommandLineWriteAppearsInTheOpenAppWithinASecond() async throws {
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
        let added = try await tmux.wait(app, "Added from the shell")
        print("e2e: a todo added by the command line showed in the open app after \(Int(added * 1000)) ms")
        XCTAssert(added <= 1.0, "the app showed the command line's todo after \(added) s")

        tmux.run(["respawn-pane", "-k", "-t", shell, cli(["newlist", "Shell list"]) + "; sleep 600"])
        try await tmux.wait(shell, "CLI-DONE-0")
        let listed = try await tmux.wait(app, "Shell list")
        print("e2e: a list made by the command line showed in the open app after \(Int(listed * 1000)) ms")
        XCTAssert(listed <= 1.0)

        // The cloud is busy and asks for a minute: r waits in the background (keys go on), q ends the wait at once.
        try await CloudClient(baseURL: stage.server.baseURL).injectFault(
            FaultRequest(endpoint: "users/caller", serverErrorCode: .throttled, count: 1, retryAfter: 60))
        tmux.keys(app, "r")
        try await tmux.wait(app, "Refreshing…")
        tmux.keys(app, "c")  // a key during the refresh is handled at once
        try await tmux.wait(app, "Hiding completed todos")
        try await Task.sleep(for: .milliseconds(300))  // the pass is in its retry wait by now
        XCTAssert(!tmux.capture(app).contains("Up to date."), "the refresh did not wait: the fault did not strike")
        tmux.keys(app, "q")
        let quit = try await tmux.wait(app, "EXIT=0")
        print("e2e: q during a 60 s retry wait returned to the shell after \(Int(quit * 1000)) ms (tmux polls every 20 ms)")
        XCTAssert(quit <= 0.2, "quitting during a retry wait took \(quit) s")
        await stage.server.shutdown()
    }
}
