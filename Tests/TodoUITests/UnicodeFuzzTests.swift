import Foundation
import HostileTextSupport
@testable import Terminal
import Testing
import TodoUI
import TestSupport

/// Property tests with random hostile Unicode: the renderer never crashes, never exceeds the width, and never
/// puts a control, C1 or bidi character into a cell.
@Suite("Hostile Unicode: the grid and the renderer", .onThreadOfItsOwn)
struct UnicodeFuzzTests {
    @Test func zeroWidthCharactersAfterAnotherCharacterDoNotCrash() {
        var screen = Screen(width: 20, height: 1)
        // Clusters of their own (grapheme break class Control): nothing to draw.
        for invisible in ["\u{200B}", "\u{FEFF}", "\u{2060}", "\u{2061}", "\u{E0001}"] {
            screen.clear()
            screen.put("a" + invisible + "b" + invisible, row: 0, col: 0)
            #expect(screen.lines == ["ab"])
            screen.put(invisible + invisible + "x", row: 0, col: 5)
            #expect(screen.invariantViolations.isEmpty)
        }
        // Joiners extend the cluster before them, which keeps its width.
        for joiner in ["\u{200D}", "\u{200C}"] {
            screen.clear()
            #expect(screen.put("a" + joiner + "b" + joiner, row: 0, col: 0) == 2)
            #expect(screen[0, 0].character == Character("a" + joiner))
            screen.put(joiner + joiner + "x", row: 0, col: 5)
            #expect(screen.invariantViolations.isEmpty)
        }
    }

    @Test func graphemeClustersTakeOneCellOfTheirWidth() {
        var screen = Screen(width: 20, height: 1)
        let family = "👨‍👩‍👧"
        #expect(screen.put(family + "|e\u{301}|🇫🇷|👩🏽‍💻|", row: 0, col: 0) == 11)
        #expect(screen[0, 0].character == Character(family))
        #expect(screen[0, 0].width == 2)
        #expect(screen[0, 1].isContinuation)
        #expect(screen[0, 3].character == "e\u{301}")
        #expect(screen[0, 5].character == "🇫🇷")
        #expect(screen[0, 8].character == "👩🏽‍💻")
        #expect(screen.lines == [family + "|e\u{301}|🇫🇷|👩🏽‍💻|"])
        #expect(displayWidth("👨‍👩‍👧‍👦") == 2)
        #expect(displayWidth("🏳️‍🌈") == 2)
    }

    @MainActor
    @Test func controlsAreMeasuredAsDrawnSoTheFormCursorFollowsTheText() {
        #expect(displayWidth("a\u{1B}[31mb\r\nc") == displayWidth(sanitize("a\u{1B}[31mb\r\nc")))
        #expect(displayWidth(of: Character("\r\n")) == 2)
        let (session, terminal) = makeSession(rows: [TodoRow(id: "t1", title: "a\u{1B}[31mb\r\nc\u{202E}d")])
        press(session, .char("e"), .end)
        guard let screen = terminal.lastScreen, let cursor = screen.cursor else {
            Issue.record("no form cursor")
            return
        }
        let line = screen.line(cursor.row)
        #expect(line.hasSuffix("Title a␛[31mb  c\u{FFFD}d"), "\(line)")
        #expect(displayWidth(line) == cursor.col)
    }

    /// Heavy loops yield now and then: the tests share two cooperative threads with the loopback clouds of
    /// the end-to-end tests.
    @Test func randomTextNeverBreaksTheGrid() async {
        var rng = SeededGenerator(seed: 0xC0FFEE)
        for round in 0..<2000 {
            if round % 50 == 0 { await Task.yield() }
            let width = Int.random(in: 1...40, using: &rng)
            var screen = Screen(width: width, height: 3)
            for _ in 0..<4 {
                let text = HostileText.random(&rng)
                let col = Int.random(in: -3...width, using: &rng)
                let limit: Int? = Bool.random(using: &rng) ? Int.random(in: -2...width, using: &rng) : nil
                let row = Int.random(in: 0..<3, using: &rng)
                let written = screen.put(text, row: row, col: col, maxWidth: limit)
                #expect(written >= 0 && written <= width + 1, "round \(round)")
                let cut = truncated(sanitize(text), toWidth: max(0, limit ?? width))
                #expect(displayWidth(cut) <= max(0, limit ?? width), "round \(round): truncated too wide")
                #expect(displayWidth(padded(sanitize(text), toWidth: width)) == width, "round \(round): padded to the wrong width")
            }
            let problems = screen.invariantViolations
            #expect(problems.isEmpty, "round \(round): \(problems.prefix(3))")
            if !problems.isEmpty { return }
        }
    }

    @Test func sanitizeLeavesNothingActive() async {
        var rng = SeededGenerator(seed: 42)
        for round in 0..<5000 {
            if round % 100 == 0 { await Task.yield() }
            let text = HostileText.random(&rng, maxLength: 40)
            let clean = sanitize(text)
            #expect(HostileText.firstActive(in: clean) == nil, "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
        }
        #expect(HostileText.firstActive(in: sanitize(HostileText.showcase)) == nil)
    }

    /// Runs on the main actor like the app, yielding between rounds so other main-actor tests are not starved.
    @MainActor
    @Test func theAppRendersRandomTitlesNamesAndNotesWithinTheScreen() async {
        var rng = SeededGenerator(seed: 7)
        for round in 0..<60 {
            await Task.yield()
            let rows = (0..<8).map { index -> TodoRow in
                switch index % 4 {
                case 0: TodoRow(id: "t\(index)", title: HostileText.random(&rng), notes: HostileText.random(&rng))
                case 1:
                    TodoRow(
                        id: "L\(index)", title: HostileText.random(&rng), scope: .shared, canUpdate: false, canDelete: false,
                        lockReason: HostileText.random(&rng), kind: .list,
                        sharing: ListSharing(owner: HostileText.random(&rng), access: .readWrite))
                case 2: TodoRow(id: "s\(index)", title: HostileText.random(&rng), scope: .shared, listID: "L\(index - 1)")
                default:
                    TodoRow(
                        id: "p\(index)", title: HostileText.random(&rng), scope: .public, canUpdate: false, canDelete: false,
                        trashBehaviour: .refuse(reason: HostileText.random(&rng)), lockReason: HostileText.random(&rng),
                        owner: HostileText.random(&rng))
                }
            }
            let width = Int.random(in: 20...90, using: &rng)
            let height = Int.random(in: 6...24, using: &rng)
            let (session, terminal) = makeSession(rows: rows, width: width, height: height)
            let keys: [[Key]] = [[.char("j")], [.tab], [.char("e")], [.escape], [.char("?")], [.escape], [.char("/")]]
            for step in keys {
                for key in step { session.handle(key) }
                session.redraw()
                check(terminal, round: round, width: width)
            }
            for character in HostileText.random(&rng) { session.handle(.char(character)) }
            session.redraw()
            check(terminal, round: round, width: width)
        }
    }

    @MainActor
    private func check(_ terminal: TextTerminal, round: Int, width: Int) {
        guard let screen = terminal.lastScreen else {
            Issue.record("nothing drawn")
            return
        }
        let problems = screen.invariantViolations
        #expect(problems.isEmpty, "round \(round): \(problems.prefix(3))\n\(screen.text)")
        for line in screen.lines { #expect(displayWidth(line) <= width) }
    }
}

@Suite("Escape sequences the terminfo does not list", .onThreadOfItsOwn)
struct EscapeSequenceTests {
    @Test func knownSequencesBecomeKeys() {
        #expect(EscapeSequence.decode("[1~") == .home)
        #expect(EscapeSequence.decode("[7~") == .home)
        #expect(EscapeSequence.decode("OH") == .home)
        #expect(EscapeSequence.decode("[H") == .home)
        #expect(EscapeSequence.decode("[4~") == .end)
        #expect(EscapeSequence.decode("[F") == .end)
        #expect(EscapeSequence.decode("[3~") == .delete)
        #expect(EscapeSequence.decode("[5~") == .pageUp)
        #expect(EscapeSequence.decode("[6~") == .pageDown)
        #expect(EscapeSequence.decode("[1;5H") == .home)
        #expect(EscapeSequence.decode("[1;2A") == .up)
        #expect(EscapeSequence.decode("OD") == .left)
        #expect(EscapeSequence.decode("[Z") == .backTab)
        #expect(EscapeSequence.decode("OP") == .function(1))
        #expect(EscapeSequence.decode("[15~") == .function(5))
        #expect(EscapeSequence.decode("[24~") == .function(12))
        #expect(EscapeSequence.decode("[[B") == .function(2))
    }

    @Test func randomBytesAfterAnEscapeNeverBecomeEscapeAndAlwaysEnd() {
        var rng = SeededGenerator(seed: 5)
        for _ in 0..<2000 {
            var reader = EscapeSequence()
            var step = EscapeSequence.Step.more
            var fed = 0
            while step == .more, fed < 64 {
                let byte = [UInt32(0x5B), 0x4F, 0x31, 0x3B, 0x7E].randomElement(using: &rng)!
                step = reader.feed(Bool.random(using: &rng) ? byte : UInt32.random(in: 0...0x7F, using: &rng))
                fed += 1
            }
            #expect(fed <= 32, "a sequence is given up on after a bounded number of bytes")
            if case .key(let key) = step, key == .escape { #expect(reader.startsWithEscape) }
            if step == .more { #expect(reader.end() == nil) }
        }
    }

    @Test func aLoneEscapeIsEscapeAndUnknownSequencesAreSwallowed() {
        #expect(EscapeSequence.decode("") == .escape)
        #expect(EscapeSequence.decode("[2~") == nil)  // Insert: no action, and no Escape
        #expect(EscapeSequence.decode("[99~") == nil)
        #expect(EscapeSequence.decode("[200~") == nil)  // bracketed paste start
        #expect(EscapeSequence.decode("x") == nil)  // Alt-x
        #expect(EscapeSequence.decode("\u{1B}") == .escape)  // Esc Esc
        #expect(EscapeSequence.decode("[") == nil)  // cut short
        var reader = EscapeSequence()
        #expect(reader.feed(0x5B) == .more)
        #expect(reader.feed(0x31) == .more)
        #expect(reader.feed(0x7E) == .key(.home))
        // A CSI that never ends is given up on after a bounded number of bytes, yielding no key.
        var long = EscapeSequence()
        var last = long.feed(0x5B)
        var fed = 1
        while last == .more, fed < 100 {
            last = long.feed(0x31)
            fed += 1
        }
        #expect(last == .key(nil))
        #expect(fed <= 32)
    }
}

@Suite("JSON output escapes what could act on a terminal")
struct JSONControlEscapingTests {
    @Test func controlsAndBidiAreEscapedAndParseBack() async throws {
        var rng = SeededGenerator(seed: 99)
        for round in 0..<500 {
            if round % 50 == 0 { await Task.yield() }
            let title = HostileText.random(&rng, maxLength: 30)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let json = escapingTerminalControls(inJSON: String(decoding: try encoder.encode(["title": title]), as: UTF8.self))
            for scalar in json.unicodeScalars where scalar != "\n" {
                #expect(!HostileText.isActive(scalar), "U+\(String(scalar.value, radix: 16)) left raw in \(json)")
            }
            let back = try JSONDecoder().decode([String: String].self, from: Data(json.utf8))
            #expect(back["title"] == title)
        }
        #expect(escapingTerminalControls(inJSON: "\"a\u{9B}b\u{202E}\u{7F}\"") == "\"a\\u009bb\\u202e\\u007f\"")
    }

    /// The word-at-a-time check that lets ASCII text through untouched, against a byte-by-byte reading: each byte
    /// value from 0x7D to 0xFF at every position of texts of 0 to 40 bytes, and beside bytes that carry when 1 is added.
    @Test func theFastCheckFindsEveryByteFrom7F() {
        for length in 0...40 {
            let plain = [UInt8](repeating: 0x7E, count: length)
            #expect(!hasByteFrom7F(String(decoding: plain, as: UTF8.self)))
            for position in 0..<length {
                for value in [0x7D, 0x7E, 0x7F, 0x80, 0xC3, 0xFF] as [UInt8] {
                    var bytes = plain
                    bytes[position] = value
                    let text = String(decoding: bytes, as: UTF8.self)
                    #expect(hasByteFrom7F(text) == text.utf8.contains { $0 >= 0x7F }, "\(length) \(position) \(value)")
                }
            }
        }
        #expect(hasByteFrom7F("abcdefgh\u{7F}") && !hasByteFrom7F("\u{0}\u{1}~~~~~~~~~~~") && hasByteFrom7F("~~~~~~~é"))
    }

    /// The byte-level check against the scalars themselves: every scalar from U+0000 to U+2FFF alone, between
    /// others and at the text's end, and random texts of scalars near the escaped ones.
    @Test func theByteCheckFindsWhatTheScalarsSay() {
        func escaped(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar.value {
            case 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029: true
            default: false
            }
        }
        for value in UInt32(0)...0x2FFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            for text in [String(scalar), "a\(scalar)b", "中\(scalar)", "\(scalar)\u{E2}"] {
                #expect(hasJSONEscapeBytes(text) == text.unicodeScalars.contains(where: escaped), "U+\(String(value, radix: 16))")
            }
        }
        var random = SplitMix(seed: 6_113)
        let near: [UInt32] = [0x41, 0x7E, 0x7F, 0x80, 0x9F, 0xA0, 0xC2, 0x61B, 0x61C, 0x61D, 0x200D, 0x200E, 0x2010, 0x2027, 0x202F,
                              0x2065, 0x2066, 0x206A, 0x4E2D, 0x1F642, 0xE000]
        for _ in 0..<3_000 {
            let scalars = (0..<Int.random(in: 0...12, using: &random)).map { _ in Unicode.Scalar(near.randomElement(using: &random)!)! }
            var text = ""
            text.unicodeScalars.append(contentsOf: scalars)
            #expect(hasJSONEscapeBytes(text) == scalars.contains(where: escaped), "\(scalars.map(\.value))")
        }
    }
}
