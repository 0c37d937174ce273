import Terminal
import Testing

@Suite("Screen, display width and sanitising")
struct ScreenTests {
    /// A flood of combining marks on one base draws at most `maximumMarksPerCell` of them; the columns after it stay
    /// where they are, and joiners, selectors and tag characters of emoji sequences are kept whole.
    @Test func combiningFloodsAreCappedPerCellAndColumnsNeverMove() {
        let flood = "Z" + String(repeating: "\u{0336}\u{0489}\u{0301}", count: 40)
        var screen = Screen(width: 20, height: 2)
        screen.put(flood + "|due", row: 0, col: 0)
        #expect(screen.lines[0].hasSuffix("|due") && displayWidth(screen.lines[0]) == 5, "\(screen.lines[0].unicodeScalars.count) scalars")
        #expect(screen.lines[0].unicodeScalars.count == 1 + Screen.maximumMarksPerCell + 4)
        for emoji in ["👨‍👩‍👧‍👦", "🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}", "🇫🇷", "🏳️‍🌈", "👩🏽‍💻"] {
            var row = Screen(width: 12, height: 1)
            row.put(emoji + "|RO", row: 0, col: 0)
            #expect(row.lines[0] == emoji + "|RO", "\(emoji) is drawn whole")
            #expect(displayWidth(emoji) == 2, "\(emoji) is two columns")
        }
    }

    @Test func asciiWidths() {
        #expect(displayWidth("hello") == 5)
        #expect(displayWidth("") == 0)
    }

    @Test func wideAndZeroWidth() {
        #expect(displayWidth("买牛奶") == 6)
        #expect(displayWidth("🥛") == 2)
        #expect(displayWidth("e\u{301}") == 1)  // e + combining acute
        #expect(displayWidth("ｱ") == 1)  // halfwidth katakana
        #expect(displayWidth("Ａ") == 2)  // fullwidth A
        #expect(displayWidth("한국") == 4)
        #expect(displayWidth("❤️") == 2)  // text heart + VS16
        #expect(displayWidth("🇫🇷") == 2)  // flag
        #expect(displayWidth("👍🏽") == 2)  // skin tone modifier joins
        #expect(displayWidth("…") == 1)
        #expect(displayWidth(of: Unicode.Scalar(0x200B)!) == 0)
    }

    @Test func putWritesWideCharactersInTwoCells() {
        var screen = Screen(width: 10, height: 1)
        let written = screen.put("a买b", row: 0, col: 0)
        #expect(written == 4)
        #expect(screen.lines == ["a买b"])
        #expect(screen[0, 1].width == 2)
        #expect(screen[0, 2].isContinuation)
        #expect(screen[0, 3].character == "b")
    }

    @Test func wideCharacterThatDoesNotFitBecomesASpace() {
        var screen = Screen(width: 5, height: 1)
        screen.put("abcd买", row: 0, col: 0)
        #expect(screen.lines == ["abcd"])
        #expect(screen[0, 4].character == " ")
        var clipped = Screen(width: 10, height: 1)
        clipped.put("ab买cd", row: 0, col: 0, maxWidth: 3)
        clipped.put("|", row: 0, col: 3)
        #expect(clipped.lines == ["ab |"])
    }

    @Test func overwritingHalfAWideCharacterBlanksTheOtherHalf() {
        var screen = Screen(width: 6, height: 1)
        screen.put("买卖", row: 0, col: 0)
        screen.put("x", row: 0, col: 1)
        #expect(screen.lines == [" x卖"])
        screen.put("y", row: 0, col: 2)
        #expect(screen.lines == [" xy"])
        #expect(screen[0, 3].isContinuation == false)
    }

    @Test func combiningMarksJoinThePreviousCell() {
        var screen = Screen(width: 6, height: 1)
        screen.put("Cafe\u{301}!", row: 0, col: 0)
        #expect(screen.lines == ["Café!"])
        #expect(screen[0, 4].character == "!")
    }

    @Test func truncationWithEllipsisKeepsWideCharactersWhole() {
        #expect(truncated("Hello world", toWidth: 8) == "Hello w…")
        #expect(truncated("Hello", toWidth: 5) == "Hello")
        #expect(truncated("买牛奶和面包", toWidth: 6) == "买牛…")
        #expect(truncated("买牛奶和面包", toWidth: 7) == "买牛奶…")
        #expect(displayWidth(padded("买牛奶和面包", toWidth: 6)) == 6)
        #expect(padded("ab", toWidth: 4, alignRight: true) == "  ab")
        #expect(truncated("abc", toWidth: 0) == "")
    }

    @Test func sanitizeMakesControlCharactersVisibleAndInert() {
        #expect(sanitize("plain") == "plain")
        #expect(sanitize("\u{1B}[31mred\u{1B}[0m") == "␛[31mred␛[0m")
        #expect(sanitize("title\u{1B}]0;pwned\u{07}") == "title␛]0;pwned␇")
        #expect(sanitize("a\nb\tc\r\n") == "a b c  ")
        #expect(sanitize("\u{7F}\u{0}") == "␡␀")
        #expect(sanitize("\u{9B}31m") == "\u{FFFD}31m")  // one-byte CSI
        #expect(sanitize("abc\u{202E}def") == "abc\u{FFFD}def")  // right-to-left override
        #expect(sanitize("买🥛") == "买🥛")
        #expect(sanitize("é\u{1B}x") == "é␛x" && sanitize("x\u{1B}é") == "x␛é" && sanitize("café \u{202E}") == "café \u{FFFD}")
        for scalar in sanitize("\u{1B}\u{9B}\u{8}\u{202E}\u{2066}\u{200F}x").unicodeScalars {
            #expect(scalar.value >= 0x20 && !(0x7F...0x9F).contains(scalar.value))
        }
    }

    @Test func putSanitisesToo() {
        var screen = Screen(width: 20, height: 1)
        screen.put("a\u{1B}[2Jb", row: 0, col: 0)
        #expect(screen.lines == ["a␛[2Jb"])
    }

    @Test func keyDecoding() {
        #expect(Key.decode(scalar: 3) == .ctrl("c"))
        #expect(Key.decode(scalar: 21) == .ctrl("u"))
        #expect(Key.decode(scalar: 13) == .enter)
        #expect(Key.decode(scalar: 27) == .escape)
        #expect(Key.decode(scalar: 127) == .backspace)
        #expect(Key.decode(scalar: 0x4E70) == .char("买"))
        #expect(Key.ctrl("d").label == "Ctrl-D")
    }

    @Test func textTerminalScriptsKeysAndKeepsTheLastFrame() {
        let terminal = TextTerminal(width: 4, height: 2, keys: [.char("a"), .enter])
        #expect(terminal.readKey(timeout: .zero) == .char("a"))
        terminal.resize(to: TerminalSize(width: 5, height: 3))
        #expect(terminal.readKey(timeout: .zero) == .resize)
        #expect(terminal.size == TerminalSize(width: 5, height: 3))
        #expect(terminal.readKey(timeout: .zero) == .enter)
        #expect(terminal.readKey(timeout: .zero) == nil)
        var screen = Screen(width: 5, height: 3)
        screen.put("hi", row: 1, col: 1)
        terminal.draw(screen)
        #expect(terminal.text == "\n hi\n")
        terminal.shutdown()
        #expect(terminal.isShutDown)
    }
}
