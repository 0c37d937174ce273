import Foundation

/// `todo-bench ui`'s launches of the real `todo` under a pseudo-terminal over a large cache: navigation keys sent
/// while the rows are still being read (key → frame), and a filter typed then (rows read → filter applied to all).
///
/// What the program draws is read back into a `ScreenModel`: a key's frame is the first one whose position in the
/// status line ("12/2,000") differs from the one before the key (every key sent moves the selection).
enum LoadingKeysBench {
    /// The figures of the launches.
    struct Figures {
        /// Milliseconds from a navigation key written to the frame answering it, over every launch.
        var keys: [Double] = []
        var keyNames: [String] = []
        /// Keys no frame answered within 3 s.
        var unanswered = 0
        /// Per filter launch: milliseconds from the frame saying every row was read to the frame with the filter
        /// applied to all rows, and from the last filter key written to that frame.
        var filterAfterRead: [Double] = []
        var filterAfterLastKey: [Double] = []
        var filterTypedWhileLoading = 0
        /// The app's peak resident memory (VmHWM) once every row was read and the filter applied, per launch, MB.
        var appPeak: [Double] = []
    }

    static let navigation: [(name: String, bytes: [UInt8])] = [
        ("j", Array("j".utf8)), ("j", Array("j".utf8)), ("j", Array("j".utf8)), ("k", Array("k".utf8)), ("G", Array("G".utf8)),
        ("k", Array("k".utf8)), ("g", Array("g".utf8)), ("PageDown", [0x1B, 0x5B, 0x36, 0x7E]), ("PageDown", [0x1B, 0x5B, 0x36, 0x7E]),
        ("PageUp", [0x1B, 0x5B, 0x35, 0x7E]), ("j", Array("j".utf8)), ("G", Array("G".utf8)), ("g", Array("g".utf8)),
    ]

    /// Launches `todo` `launches` times for the keys and as often for the filter `word` (which `expected` of the
    /// `count` todos match).
    static func run(todo: String, arguments: [String], count: Int, launches: Int, word: String, expected: Int) throws -> Figures {
        var figures = Figures()
        for _ in 0..<launches { try navigate(todo, arguments, into: &figures) }
        for _ in 0..<launches { try filter(todo, arguments, word: word, expected: expected, count: count, into: &figures) }
        return figures
    }

    /// A launch under a pseudo-terminal, its screen read back.
    final class Launch {
        let terminal: PseudoTerminal
        var screen = ScreenModel(width: 120, height: 40)

        init(_ todo: String, _ arguments: [String]) throws { terminal = try PseudoTerminal(todo, arguments) }

        /// Reads what came within `milliseconds` into the screen; false when nothing did.
        @discardableResult
        func pump(_ milliseconds: Int32) throws -> Bool {
            guard let bytes = terminal.read(waiting: milliseconds) else { throw BenchError("the app closed its terminal") }
            screen.feed(bytes)
            return !bytes.isEmpty
        }

        /// Reads until `condition` holds of the screen (checked after every read); the instant it first did, or nil
        /// after `seconds`.
        func wait(upTo seconds: Double, until condition: (Launch) -> Bool) throws -> ContinuousClock.Instant? {
            let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
            while ContinuousClock.now < deadline {
                if condition(self) { return .now }
                try pump(5)
            }
            return condition(self) ? .now : nil
        }

        /// Reads until the terminal is quiet for `milliseconds`.
        func settle(_ milliseconds: Int32) throws { while try pump(milliseconds) {} }

        /// The header says rows are still being read.
        var isLoading: Bool { screen.line(0).contains("loading ") }
        /// The header says every row was read ("loading 100,000 of 100,000").
        var hasReadAll: Bool {
            let header = screen.line(0)
            guard let range = header.range(of: "loading ") else { return false }
            let words = header[range.upperBound...].split(separator: " ")
            return words.count >= 3 && words[1] == "of" && words[0] == words[2]
        }
        /// The status line's "selected/listed", as numbers.
        var position: (selected: Int, listed: Int)? {
            guard let last = screen.line(39).split(separator: " ").last else { return nil }
            let parts = last.split(separator: "/")
            guard parts.count == 2, let selected = Int(parts[0].filter(\.isNumber)), let listed = Int(parts[1].filter(\.isNumber)),
                parts.allSatisfy({ $0.allSatisfy { $0.isNumber || $0 == "," } })
            else { return nil }
            return (selected, listed)
        }
    }

    /// Sends navigation keys (each one that moves the selection) while the header says rows are loading.
    static func navigate(_ todo: String, _ arguments: [String], into figures: inout Figures) throws {
        let launch = try Launch(todo, arguments)
        defer { launch.terminal.quit() }
        guard try launch.wait(upTo: 20, until: { $0.position != nil }) != nil else { throw BenchError("no rows drawn within 20 s") }
        var next = 0
        while launch.isLoading {
            guard let (selected, listed) = launch.position else { break }
            // The next key of the round that moves the selection from where it is.
            var key = navigation[next % navigation.count]
            for _ in 0..<navigation.count {
                key = navigation[next % navigation.count]
                next += 1
                let atTop = selected == 1
                let atEnd = selected == listed
                let moves = switch key.name {
                case "j", "G", "PageDown": !atEnd
                default: !atTop
                }
                if moves { break }
            }
            let before = launch.screen.line(39)
            launch.terminal.send(key.bytes)
            let sent = ContinuousClock.now
            if let answered = try launch.wait(upTo: 3, until: { $0.screen.line(39) != before }) {
                figures.keys.append(milliseconds(answered - sent))
                figures.keyNames.append(key.name)
            } else {
                figures.unanswered += 1
            }
            try launch.settle(2)
            // A person's pace between keys: about 30 keys a second.
            _ = try launch.pump(30)
        }
    }

    /// Types `/word` and Enter key by key as soon as the first rows are drawn, then waits for every row with the
    /// filter applied.
    static func filter(_ todo: String, _ arguments: [String], word: String, expected: Int, count: Int, into figures: inout Figures) throws {
        let launch = try Launch(todo, arguments)
        defer { launch.terminal.quit() }
        guard try launch.wait(upTo: 20, until: { $0.position != nil }) != nil else { throw BenchError("no rows drawn within 20 s") }
        var readAll: ContinuousClock.Instant?
        var lastKey = ContinuousClock.now
        var typedWhileLoading = true
        for byte in Array(("/" + word).utf8) + [0x0D] {
            typedWhileLoading = typedWhileLoading && launch.isLoading
            launch.terminal.send([byte])
            lastKey = .now
            let pause = ContinuousClock.now + .milliseconds(30)
            while ContinuousClock.now < pause {
                try launch.pump(5)
                if readAll == nil, launch.hasReadAll { readAll = .now }
            }
        }
        if typedWhileLoading { figures.filterTypedWhileLoading += 1 }
        guard let done = try launch.wait(upTo: 30, until: { launch in
            if readAll == nil, launch.hasReadAll { readAll = .now }
            return !launch.isLoading && launch.position?.listed == expected
        }) else {
            throw BenchError("the filter '\(word)' never showed its \(expected) todos (status line: \(launch.screen.line(39)))")
        }
        if let readAll { figures.filterAfterRead.append(milliseconds(done - readAll)) }
        figures.filterAfterLastKey.append(milliseconds(done - lastKey))
        figures.appPeak.append(peakRSS(pid: launch.terminal.process.processIdentifier))
    }
}

/// A duration in milliseconds.
func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}
