import CloudServer
import Foundation
import HostileTextSupport
import TestSupport
import Testing

extension TrustedTextEndToEnd {
    /// The real app in tmux: hostile text from another account reaches the screen inert (the window title and the
    /// clipboard stay untouched), and the terminal quirks of real life: LANG=C, TERM=dumb, NO_COLOR, unknown keys.
    @Suite("The terminal app with other people's text and real terminals", .serialized)
    struct TerminalTextTests {
        @Test func aHostilePostAndSharedListNeitherCommandNorBreakTheTerminal() async throws {
            let stage = try await E2EStage.start()
            defer { stage.tearDown() }
            let tmux = stage.tmux
            _ = try await HostileWorld.plant(TodoCommandLine(stage: stage))

            // tmux acts on OSC 0 (pane title) and, with set-clipboard on, on OSC 52 (a paste buffer): both observable.
            tmux.run(["new-session", "-d", "-s", "hostile", "-x", "100", "-y", "14", "sleep 600"])
            tmux.run(["set-option", "-g", "set-clipboard", "on"])
            let control = "hostile:0.0"
            tmux.run(["respawn-pane", "-k", "-t", control, "printf '\\033]0;PWNED\\007\\033]52;c;cGF5bG9hZA==\\007'; sleep 600"])
            try await waitForTitle(tmux, control, "PWNED")
            #expect(!tmux.run(["list-buffers"]).isEmpty, "the harness must see an OSC 52 when one reaches tmux")
            tmux.run(["delete-buffer"])
            #expect(tmux.run(["list-buffers"]).isEmpty)

            tmux.run(["split-window", "-v", "-t", "hostile", stage.app(account: "alice", device: "main") + "; echo EXIT=$?; sleep 600"])
            let app = "hostile:0.1"
            try await tmux.wait(app, "synced")
            tmux.keys(app, "Tab")
            try await tmux.wait(app, "Todo␛]52;c;cGF5bG9hZA==␇")
            let shared = tmux.capture(app)
            tmux.keys(app, "Tab")
            try await tmux.wait(app, "Pay␛]0;PWNED␇")
            let board = tmux.capture(app)

            #expect(!pane(tmux, app, "#{pane_title}").contains("PWNED"), "the app's pane title was set by a todo")
            #expect(tmux.run(["list-buffers"]).isEmpty, "a todo wrote the clipboard")
            for screen in [shared, board] {
                #expect(!screen.unicodeScalars.contains { $0 != "\n" && HostileText.isActive($0) })
            }
            // The list heading and its todo on the Shared tab; the post on the public board. The family emoji is one
            // two-column cluster: what follows it sits right after it.
            #expect(shared.contains("List␛[2J\u{FFFD}H\u{FFFD}tsil 👨‍👩‍👧 · 1 open · mallory's · read-write"), "\(shared)")
            #expect(shared.contains("[ ] Todo␛]52;c;cGF5bG9hZA==␇\u{FFFD}x \u{FFFD}next"), "\(shared)")
            #expect(board.contains("[ ] Pay␛]0;PWNED␇ ␛]52;c;cm0gLXJmIH4=␇\u{FFFD}31m red\u{FFFD}gnp.exe\u{FFFD}x\u{FFFD} abcd 👨‍👩‍👧 e\u{301}"), "\(board)")

            tmux.keys(app, "q")
            try await tmux.wait(app, "EXIT=0")
            await stage.server.shutdown()
        }

        @Test func underLangCTypedTextIsSavedWhole() async throws {
            let stage = try await E2EStage.start()
            defer { stage.tearDown() }
            let tmux = stage.tmux
            // Clusters ncurses would tear apart or miscount: a flag (two one-column scalars), a family of four (more
            // scalars than a cell holds: drawn as the family of three its first five make), and text after them in place.
            try await TodoCommandLine(stage: stage).run("alice", ["add", "A🇫🇷B|four 👨‍👩‍👧‍👦|z"])
            let command = stage.app(account: "alice", device: "main", environment: ["LANG=C", "LC_ALL=C"]) + "; echo EXIT=$?; sleep 600"
            tmux.run(["new-session", "-d", "-s", "langc", "-x", "80", "-y", "12", command])
            let pane = "langc:0.0"
            try await tmux.wait(pane, "synced")
            try await tmux.wait(pane, "[ ] A🇫🇷B|four 👨‍👩‍👧|z")
            try await tmux.submit(pane, key: "a", opens: "New todo", text: "café 中文 👨‍👩‍👧")
            try await tmux.wait(pane, "[ ] café 中文 👨‍👩‍👧")
            tmux.keys(pane, "q")
            try await tmux.wait(pane, "EXIT=0")
            let list = try await TodoCommandLine(stage: stage).run("alice", ["list", "--json", "--offline"])
            let rows = try JSONDecoder().decode([JSONRow].self, from: list.stdout)
            #expect(rows.map(\.title).sorted() == ["A🇫🇷B|four 👨‍👩‍👧‍👦|z", "café 中文 👨‍👩‍👧"])
            await stage.server.shutdown()
        }

        @Test func aDumbTerminalIsRefusedInOneLine() async throws {
            let stage = try await E2EStage.start()
            defer { stage.tearDown() }
            let tmux = stage.tmux
            for (session, term) in [("dumb", "TERM=dumb"), ("unknown", "TERM=no-such-terminal-xyz")] {
                let command = "clear; " + stage.app(account: "alice", device: "main", environment: [term]) + "; echo EXIT=$?; sleep 600"
                tmux.run(["new-session", "-d", "-s", session, "-x", "200", "-y", "8", command])
                try await tmux.wait("\(session):0.0", "EXIT=")
                let screen = tmux.capture("\(session):0.0").split(separator: "\n").filter { !$0.isEmpty }
                #expect(screen.count == 2, "one line, then the exit code: \(screen)")
                #expect(screen.first?.hasPrefix("Error: \(term)") == true, "\(screen)")
                #expect(screen.last == "EXIT=1")
            }
            await stage.server.shutdown()
        }

        @Test func noColorKeepsTheSelectionVisibleWithoutColours() async throws {
            let stage = try await E2EStage.start()
            defer { stage.tearDown() }
            let tmux = stage.tmux
            try await TodoCommandLine(stage: stage).run("alice", ["add", "Buy milk", "--priority", "3", "--due", "2020-01-01"])
            // NO_COLOR may be set where the tests run; empty, it asks for nothing (no-color.org).
            for (session, environment) in [("colour", ["NO_COLOR="]), ("nocolour", ["NO_COLOR=1"])] {
                let command = stage.app(account: "alice", device: session, environment: environment) + "; sleep 600"
                tmux.run(["new-session", "-d", "-s", session, "-x", "80", "-y", "10", command])
                try await tmux.wait("\(session):0.0", "synced")
            }
            let coloured = tmux.run(["capture-pane", "-p", "-e", "-t", "colour:0.0"])
            let plain = tmux.run(["capture-pane", "-p", "-e", "-t", "nocolour:0.0"])
            #expect(sgrParameters(coloured).contains { isColour($0) }, "the control pane shows colours:\n\(coloured)")
            #expect(!sgrParameters(plain).contains { isColour($0) }, "NO_COLOR still drew colours:\n\(plain)")
            #expect(sgrParameters(plain).contains(7), "the selection is reverse video:\n\(plain)")
            await stage.server.shutdown()
        }

        @Test func aHomeKeyTheTerminfoLacksKeepsTheEdit() async throws {
            let stage = try await E2EStage.start()
            defer { stage.tearDown() }
            let tmux = stage.tmux
            tmux.run(["new-session", "-d", "-s", "keys", "-x", "80", "-y", "12", stage.app(account: "alice", device: "main") + "; sleep 600"])
            let pane = "keys:0.0"
            try await tmux.wait(pane, "synced")
            tmux.keys(pane, "a")
            try await tmux.wait(pane, "New todo")
            tmux.type(pane, "milk")
            // xterm-256color's terminfo says Home is ESC O H; ESC [ 1 ~ (rxvt, the Linux console, screen) is unknown to it.
            tmux.run(["send-keys", "-t", pane, "-H", "1b", "5b", "31", "7e"])
            tmux.type(pane, "Oat ")
            tmux.run(["send-keys", "-t", pane, "-H", "1b", "5b", "34", "7e"])  // End, same story
            tmux.type(pane, "!")
            try await tmux.wait(pane, "Oat milk!")
            tmux.keys(pane, "Enter")
            try await tmux.wait(pane, "[ ] Oat milk!")
            await stage.server.shutdown()
        }

        private func pane(_ tmux: Tmux, _ target: String, _ format: String) -> String {
            tmux.run(["display-message", "-p", "-t", target, format])
        }

        private func waitForTitle(_ tmux: Tmux, _ target: String, _ title: String) async throws {
            #expect(
                await eventually(30) { pane(tmux, target, "#{pane_title}").contains(title) },
                "the harness must see an OSC 0 when one reaches tmux")
        }

        /// Every SGR parameter in a `capture-pane -e` dump.
        private func sgrParameters(_ screen: String) -> [Int] {
            var result: [Int] = []
            var rest = Substring(screen)
            while let start = rest.range(of: "\u{1B}[") {
                rest = rest[start.upperBound...]
                guard let end = rest.firstIndex(where: { !($0.isNumber || $0 == ";") }) else { break }
                if rest[end] == "m" { result += rest[..<end].split(separator: ";").compactMap { Int($0) } }
                rest = rest[end...]
            }
            return result
        }

        private func isColour(_ parameter: Int) -> Bool {
            (30...38).contains(parameter) || (40...48).contains(parameter) || (90...97).contains(parameter) || (100...107).contains(parameter)
        }
    }
}
