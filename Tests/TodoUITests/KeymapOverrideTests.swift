import Terminal
import Testing
import TodoUI

@Suite("Keys people configure: the [keys] table")
@MainActor
struct KeymapOverrideTests {
    static let grammar =
        "one printable character, space, tab, shift-tab, enter, backspace, del, esc, up, down, left, right, home, end, "
        + "pgup, pgdn, f1 to f12 or ctrl-a to ctrl-z, separated by spaces"
    static let commands =
        "move-up, move-down, page-up, page-down, top, bottom, add, edit, toggle-done, trash, undo, redo, filter, "
        + "toggle-completed, next-tab, prev-tab, new-list, move, share, invitations, leave, details, today, next, calendar, sort, "
        + "next-saved-filter, next-context, save-filter, skip, mark, clear-marks, priority, add-tag, remove-tag, refresh, sign-in, help, quit"

    /// The error a table is refused with, or nil when it is read.
    func refusal(_ overrides: [String: String]) -> KeymapError? {
        do {
            _ = try Keymap(overrides: overrides)
            return nil
        } catch {
            return error
        }
    }

    @Test func commandNamesAreKebabCaseAndStable() throws {
        #expect(Keymap.commandNames.joined(separator: ", ") == Self.commands)
        #expect(Command.nextSavedFilter.name == "next-saved-filter")
        #expect(try Keymap(overrides: [:]) == .standard)
    }

    @Test func keyNamesReadAsKeys() {
        let expected: [(String, Key?)] = [
            ("x", .char("x")), ("T", .char("T")), ("/", .char("/")), ("é", .char("é")), ("中", .char("中")),
            ("space", .char(" ")), ("Space", .char(" ")), ("tab", .tab), ("shift-tab", .backTab), ("enter", .enter),
            ("backspace", .backspace), ("del", .delete), ("esc", .escape), ("up", .up), ("down", .down), ("left", .left),
            ("right", .right), ("home", .home), ("end", .end), ("pgup", .pageUp), ("PgDn", .pageDown), ("f1", .function(1)),
            ("F12", .function(12)), ("ctrl-a", .ctrl("a")), ("Ctrl-F", .ctrl("f")), ("ctrl-z", .ctrl("z")),
            // These arrive from the terminal as other keys, and are read as those.
            ("ctrl-h", .backspace), ("ctrl-i", .tab), ("ctrl-j", .enter), ("ctrl-m", .enter),
            // Not keys.
            ("f0", nil), ("f13", nil), ("f01", nil), ("ctrl-1", nil), ("ctrl-ab", nil), ("ctrl-", nil), ("xy", nil),
            ("e\u{301}", nil), ("\u{301}", nil), ("\u{1B}", nil), ("\u{202E}", nil), ("\u{A0}", nil), ("", nil),
            ("pageup", nil), ("escape-and-more-words", nil),
        ]
        for (name, key) in expected {
            #expect(KeyName.key(named: name) == key, "\(name.unicodeScalars.map(\.value))")
        }
    }

    @Test func overridesTakeTheirKeysFromTheDefaults() throws {
        let keymap = try Keymap(overrides: ["trash": "x", "filter": "/ ctrl-f", "today": "t", "mark": "V"])
        #expect(keymap.command(for: .char("x")) == .trash)
        #expect(keymap.command(for: .char("d")) == nil)
        #expect(keymap.command(for: .ctrl("f")) == .filter)
        #expect(keymap.command(for: .char("/")) == .filter)
        #expect(keymap.command(for: .char("t")) == .today)
        #expect(keymap.command(for: .char("T")) == nil)
        #expect(keymap.command(for: .char("v")) == nil)
        #expect(keymap.command(for: .char("V")) == .mark)
        // `x` was leave's: leave has no key left, and says so.
        #expect(keymap.binding(for: .leave)?.keys == [])
        #expect(keymap.unboundCommands == [.leave])
        #expect(keymap.binding(for: .filter)?.keyLabel == "/ Ctrl-F")
        // Everything else is as it was.
        #expect(keymap.command(for: .char("j")) == .moveDown)
        #expect(keymap.binding(for: .quit)?.keys == [.char("q"), .ctrl("c")])
    }

    @Test func anEmptyListLeavesACommandWithoutKeyAndRepeatsAreRead() throws {
        let keymap = try Keymap(overrides: ["refresh": "  ", "undo": "U U ctrl-z"])
        #expect(keymap.binding(for: .refresh)?.keys == [])
        #expect(keymap.command(for: .char("r")) == nil)
        #expect(keymap.binding(for: .undo)?.keys == [.char("U"), .ctrl("z")])
    }

    @Test func escAndCtrlCStayWithTheirCommands() throws {
        let quit = try Keymap(overrides: ["quit": "ctrl-c Q", "clear-marks": "esc C"])
        #expect(quit.binding(for: .quit)?.keys == [.char("Q"), .ctrl("c")])
        #expect(quit.binding(for: .clearMarks)?.keys == [.char("C"), .escape])
        let marks = try Keymap(overrides: ["clear-marks": ""])
        #expect(marks.binding(for: .clearMarks)?.keys == [.escape])
    }

    @Test func aRemappedKeyDrivesTheAppAndTheDefaultNoLonger() throws {
        let keymap = try Keymap(overrides: ["trash": "x", "details": "D", "help": "h f1", "add": "A"])
        let (session, terminal) = makeSession(keymap: keymap)
        #expect(terminal.lastScreen?.lines.last?.hasPrefix("h help · A add · / filter · q quit") == true)
        press(session, .char("d"))
        #expect(session.state.mode == .list)
        press(session, .char("x"))
        guard case .confirmDelete = session.state.mode else {
            Issue.record("x did not ask to delete: \(session.state.mode)")
            return
        }
        press(session, .char("n"))
        press(session, .char("D"))
        guard case .detail = session.state.mode else {
            Issue.record("D did not show the details: \(session.state.mode)")
            return
        }
        // The details key closes them again.
        press(session, .char("D"))
        #expect(session.state.mode == .list)
        press(session, .char("?"))
        #expect(session.state.mode == .list)
        press(session, .char("h"))
        #expect(session.state.mode == .help)
    }

    @Test func hintsSayTheConfiguredKeys() throws {
        let keymap = try Keymap(overrides: ["mark": "V", "toggle-done": "ctrl-t", "remove-tag": "", "today": "t", "undo": "U"])
        let (session, terminal) = makeSession(width: 100, keymap: keymap)
        #expect(terminal.lastScreen?.lines[1].hasSuffix("t Today") == true)
        press(session, .char("V"))
        #expect(terminal.lastScreen?.lines.last?.hasPrefix("1 marked · Ctrl-T done · d delete · m move · p priority · + tag · Esc clears") == true)
        press(session, .ctrl("t"))
        #expect(terminal.lastScreen?.lines.last?.contains("(U undoes)") == true)
        press(session, .char("t"))
        #expect(terminal.lastScreen?.lines.last?.contains("(t goes back)") == true)
    }

    @Test func helpShowsTheConfiguredKeys() throws {
        let keymap = try Keymap(overrides: ["trash": "x", "help": "h f1", "mark": "V", "undo": "U", "today": "t"])
        let (session, terminal) = makeSession(height: 24, keymap: keymap)
        press(session, .char("h"))
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 4]  Shared 1   Public 2   t Today
             Keys
              k ↑                  move up
              j ↓                  move down
              Ctrl-U PgUp          page up
              Ctrl-D PgDn          page down
              g Home               first todo
              G End                last todo
              a                    add a todo (to the selected list)
              e Enter              edit the todo, rename the list
              Space                toggle done
              x                    delete, after asking (a list: with …
              U                    undo last action
              n                    new list
              m                    move the todo to another list
              s                    share the list (people, access)
              i                    invitations to shared lists
              /                    filter as you type
              f                    next saved filter, then none
              F                    save the filter under a name
              X                    switch the context (saved filters)
              c                    show/hide completed
            j/k scroll · any other key closes help
            """)
        // The leave key went to trash: leave is not listed; the questions and marks say the new keys.
        press(session, .pageDown)
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
            [Todos 4]  Shared 1   Public 2   t Today
             Keys
              N                    Next: most urgent first
              C                    Calendar: the month, due by day
              O                    cycle the sort order
              o                    details, notes log (a annotates)
              >                    skip this repeat occurrence
              p                    set priority (0-3)
              +                    add a tag
              -                    remove a tag
              V                    mark for a bulk action
              Esc                  clear the marks
              Tab                  next tab
              Shift-Tab            previous tab
              r                    refresh (fetch now)
              L                    sign in again (session ended)
              h F1                 help
              q Ctrl-C             quit

             Questions
              x  Ctrl-X            ask y/n before removing anything
              y                    confirms; n, Esc or q keep it
            j/k scroll · any other key closes help
            """)
    }

    @Test func markdownTableNamesEveryCommand() throws {
        let keymap = try Keymap(overrides: ["trash": "x"])
        let markdown = keymap.markdownTable()
        #expect(markdown.hasPrefix("| Keys | Action | Name in `[keys]` |\n| --- | --- | --- |\n| `k` `↑` | move up | `move-up` |\n"))
        #expect(markdown.contains("\n| `x` | delete, after asking (a list: with its todos) | `trash` |\n"))
        #expect(markdown.contains("\n|  | leave a list shared with you | `leave` |\n"))
        #expect(markdown.contains("\n| x (marked todos) | delete them, after asking | |\n"))
        #expect(Keymap.markdownTable() == Keymap.standard.markdownTable())
        for name in Keymap.commandNames {
            #expect(Keymap.markdownTable().contains("| `\(name)` |"))
        }
    }

    @Test func unknownCommandsAreRefusedListingTheCommands() {
        let error = refusal(["trash": "x", "zap": "z", "frobnicate": "y"])
        #expect(error == .unknownCommand("frobnicate"))
        #expect(error?.description == "\"frobnicate\" in [keys] is not a command; the commands are \(Self.commands).")
    }

    @Test func unknownKeyNamesAreRefusedListingTheGrammar() {
        let error = refusal(["trash": "x ctrl-ä"])
        #expect(error == .unknownKey(command: .trash, key: "ctrl-ä"))
        #expect(error?.description == "\"ctrl-ä\" for trash in [keys] is not a key; keys are \(Self.grammar).")
    }

    @Test func aKeyGivenToTwoCommandsNamesBoth() {
        let error = refusal(["leave": "z", "trash": "z"])
        #expect(error == .keyBoundTwice(key: .char("z"), first: .trash, second: .leave))
        #expect(error?.description == "[keys] gives z to both trash and leave; give each key to one command.")
        // ctrl-i is Tab: given with tab elsewhere, that is the same key.
        #expect(refusal(["next-tab": "tab", "filter": "ctrl-i"])?.description
            == "[keys] gives Tab to both filter and next-tab; give each key to one command.")
    }

    @Test func escAndCtrlCCannotBeGivenAway() {
        let esc = refusal(["trash": "x esc"])
        #expect(esc == .fixedKey(.escape, command: .trash))
        #expect(esc?.description == "[keys] cannot give Esc to trash: Esc always cancels and clears the marks; choose another key.")
        #expect(refusal(["help": "? ctrl-c"])?.description == "[keys] cannot give Ctrl-C to help: Ctrl-C always quits; choose another key.")
    }

    @Test func quitAndHelpKeepAKey() {
        let quit = refusal(["quit": ""])
        #expect(quit == .noKey(.quit))
        #expect(quit?.description == "[keys] leaves quit without a key besides Ctrl-C; give it one, as in quit = \"q\".")
        #expect(refusal(["quit": "ctrl-c"]) == .noKey(.quit))
        // Taking help's keys for other commands leaves it without one.
        let help = refusal(["trash": "?", "details": "f1"])
        #expect(help == .noKey(.help))
        #expect(help?.description == "[keys] leaves help without a key; give it one, as in help = \"?\".")
        #expect(refusal(["trash": "q"]) == .noKey(.quit))
    }

    @Test func hostileTextIsShownSanitisedAndShort() {
        let name = refusal(["tr\u{1B}[31mash\n\u{202E}": "x"])
        #expect(name?.description == "\"tr␛[31mash �\" in [keys] is not a command; the commands are \(Self.commands).")
        let key = refusal(["trash": "\u{1B}]0;pwned\u{07}"])
        #expect(key?.description == "\"␛]0;pwned␇\" for trash in [keys] is not a key; keys are \(Self.grammar).")
        let long = refusal(["trash": String(repeating: "ab", count: 5_000)])
        #expect(long?.description == "\"\(String(repeating: "ab", count: 19))a…\" for trash in [keys] is not a key; keys are \(Self.grammar).")
        for error in [name, key, long].compactMap(\.self) {
            #expect(!error.description.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        }
    }
}
