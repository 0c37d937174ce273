import CNcurses

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The real terminal, through ncursesw: UTF-8 and wide characters (a grapheme cluster per cell), colours
/// with a monochrome fallback (also under `NO_COLOR`), resize as `.resize`, escape sequences the terminfo
/// lacks decoded or ignored, and the terminal restored on exit, on signals and on crashes.
///
/// Create one per process, from the thread that runs the UI loop, and call `shutdown()` when done
/// (the atexit hook and the signal handlers restore the terminal if you cannot).
public final class NcursesTerminal: TerminalDriver {
    private var active = false
    private let hasColors: Bool
    private var scratch: [wchar_t] = []

    /// Enters curses mode: a UTF-8 locale, raw keys, no echo, keypad decoding, colours unless `NO_COLOR` is set.
    ///
    /// `palette` colours the roles; a colour the terminal lacks (a number past its colour count) shows as the
    /// standard palette's colour of that role. Throws `TerminalUnavailable` before touching the screen when the
    /// terminal cannot show the app (`TERM=dumb`, a name terminfo does not know) or no UTF-8 locale exists.
    public init(palette: Palette = .standard) throws {
        try Self.preflight()
        initscr()
        cn_set_active(1)
        // Referenced from Swift so that its static storage is emitted with the handlers.
        _ = cn_previous_actions()
        cn_install_restore_handlers()
        raw()
        noecho()
        nonl()
        keypad(cn_stdscr(), true)
        set_escdelay(25)
        curs_set(0)
        if has_colors() && !Self.colorsDisabledByUser {
            start_color()
            use_default_colors()
            for role in ColorRole.allCases {
                let pair = Int16(role.rawValue)
                if init_pair(pair, palette[role].cursesNumber, -1) == cn_err() {
                    _ = init_pair(pair, Palette.standard[role].cursesNumber, -1)
                }
            }
            hasColors = true
        } else {
            hasColors = false
        }
        active = true
    }

    /// Checks that the terminal can show the app and switches the character type to UTF-8, without drawing.
    ///
    /// Under `LANG=C` (or any non-UTF-8 locale) the character type falls back to a UTF-8 locale, so that
    /// typed and shown text keeps every character: terminals today speak UTF-8 whatever the locale says.
    public static func preflight() throws {
        let name = environment("TERM")
        guard !name.isEmpty else { throw TerminalUnavailable("TERM is not set: the app needs to know the terminal") }
        switch cn_terminal_support(name) {
        case 1: break
        case -1: throw TerminalUnavailable("no terminfo database found, so TERM=\(sanitize(name)) cannot be drawn on")
        case -2: throw TerminalUnavailable("TERM=\(sanitize(name)) cannot move the cursor, so the app cannot draw on it")
        default: throw TerminalUnavailable("TERM=\(sanitize(name)) is unknown to terminfo or too limited to draw the app")
        }
        guard TextLocale.useUTF8() else {
            throw TerminalUnavailable("no UTF-8 locale is installed (tried \(TextLocale.fallbacks.joined(separator: ", "))); set LANG to one")
        }
    }

    /// True when the user asked for no colour (`NO_COLOR` set and not empty, see no-color.org).
    public static var colorsDisabledByUser: Bool {
        !environment("NO_COLOR").isEmpty
    }

    deinit {
        shutdown()
    }

    /// Leaves curses mode (the normal screen, echo and line input back) for another program.
    public func suspend() {
        guard active else { return }
        endwin()
    }

    /// Back to curses mode; the whole screen is drawn again on the next frame.
    public func resume() {
        guard active else { return }
        clearok(cn_stdscr(), true)
        refresh()
    }

    /// The terminal size as ncurses last saw it.
    public var size: TerminalSize {
        TerminalSize(width: Int(cn_cols()), height: Int(cn_lines()))
    }

    /// Draws the whole screen into the ncurses buffer and refreshes; ncurses sends only changes.
    public func draw(_ screen: Screen) {
        guard active else { return }
        erase()
        let rows = min(screen.height, Int(cn_lines()))
        let cols = min(screen.width, Int(cn_cols()))
        var current: Style?
        var attributes = cn_a_normal()
        var pair: Int16 = 0
        for row in 0..<rows {
            for col in 0..<cols {
                let cell = screen[row, col]
                if cell.isContinuation { continue }
                if cell.style != current {
                    (attributes, pair) = attributesAndPair(of: cell.style)
                    cn_attr_set(attributes, pair)
                    current = cell.style
                }
                scratch.removeAll(keepingCapacity: true)
                for scalar in cell.character.unicodeScalars {
                    scratch.append(wchar_t(bitPattern: scalar.value))
                }
                if Self.spreadsOverCells(scratch, width: cell.width) {
                    let count = Int32(scratch.count)
                    scratch.append(0)
                    _ = scratch.withUnsafeBufferPointer { cn_mvaddnwstr(Int32(row), Int32(col), $0.baseAddress, count) }
                    continue
                }
                Self.narrowToFirstScalarWidth(&scratch, width: cell.width)
                Self.fitCluster(&scratch, into: Int(cn_cell_scalars()))
                let count = Int32(scratch.count)
                _ = scratch.withUnsafeBufferPointer {
                    cn_mvadd_cluster(Int32(row), Int32(col), $0.baseAddress, count, attributes, pair)
                }
            }
        }
        cn_attr_set(cn_a_normal(), 0)
        if let cursor = screen.cursor, cursor.row < rows, cursor.col < cols {
            curs_set(1)
            _ = cn_move(Int32(cursor.row), Int32(cursor.col))
        } else {
            curs_set(0)
        }
        refresh()
    }

    /// Reads one key, waiting up to `timeout` (nil waits forever).
    public func readKey(timeout: Duration?) -> Key? {
        guard active else { return nil }
        if let timeout {
            let ms = timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
            CNcurses.timeout(Int32(clamping: max(0, ms)))
        } else {
            CNcurses.timeout(-1)
        }
        var value: UInt32 = 0
        switch cn_get_wch(&value) {
        case Int32(CN_INPUT_CHAR) where value == 27:
            return readEscapeSequence()
        case Int32(CN_INPUT_CHAR):
            return Key.decode(scalar: value)
        case Int32(CN_INPUT_KEY):
            return decodeFunctionKey(Int32(bitPattern: value))
        default:
            return nil
        }
    }

    /// After an ESC: a lone Escape, or the rest of a sequence the terminfo entry does not list (ncurses hands
    /// those back byte by byte, already buffered), decoded by `EscapeSequence` or swallowed whole, so that a
    /// Home key of another terminal never reaches the app as Escape followed by `[1~`.
    private func readEscapeSequence() -> Key? {
        var reader = EscapeSequence()
        CNcurses.timeout(0)
        while true {
            var value: UInt32 = 0
            switch cn_get_wch(&value) {
            case Int32(CN_INPUT_CHAR):
                switch reader.feed(value) {
                case .more: continue
                case .key(let key): return key
                }
            case Int32(CN_INPUT_KEY):
                // A known key right after ESC: an Alt chord of it; take the key.
                return decodeFunctionKey(Int32(bitPattern: value))
            default:
                return reader.end()
            }
        }
    }

    private static func environment(_ name: String) -> String {
        getenv(name).map { String(cString: $0) } ?? ""
    }

    /// Leaves curses mode and restores the terminal.
    public func shutdown() {
        guard active else { return }
        active = false
        curs_set(1)
        cn_restore_terminal()
    }

    /// Whether a cluster is better handed to ncurses scalar by scalar: when the columns ncurses counts for its
    /// scalars one by one (wcwidth) add up to the cell's width but the first alone does not (a flag is two
    /// regional indicators of one column each). ncurses then advances as far as the grid, and a terminal that
    /// joins the pair draws it in those columns. Otherwise (a ZWJ sequence) the cluster goes in one cell.
    static func spreadsOverCells(_ scalars: [wchar_t], width: Int) -> Bool {
        guard scalars.count > 1, let first = scalars.first else { return false }
        if max(0, Int(cn_wcwidth(first))) == width { return false }
        return scalars.reduce(0) { $0 + max(0, Int(cn_wcwidth($1))) } == width
    }

    /// A two-column emoji whose first scalar ncurses counts as one column (a text-default base made emoji by U+FE0F:
    /// ❤️, 🏳️‍🌈, 1️⃣) is drawn in text presentation, its base and marks without the selector or what a joiner adds,
    /// followed by the blank of its second column. Terminals disagree on the emoji's width (one column by the C
    /// library's count, two by the grapheme's), and ncurses counts one, so the rest of the row would move by a column
    /// on some; the text form is one column on all of them.
    static func narrowToFirstScalarWidth(_ scalars: inout [wchar_t], width: Int) {
        guard width == 2, scalars.count > 1, let first = scalars.first, cn_wcwidth(first) == 1 else { return }
        if let joiner = scalars.firstIndex(of: 0x200D) { scalars.removeSubrange(joiner...) }
        scalars.removeAll { $0 == 0xFE0F }
    }

    /// Cuts a cluster longer than a cell holds at a joiner boundary: a family of four that does not fit
    /// shows as the family of three its first five scalars make, never as a sequence ending in a joiner.
    static func fitCluster(_ scalars: inout [wchar_t], into capacity: Int) {
        guard scalars.count > capacity else { return }
        scalars.removeSubrange(capacity...)
        while scalars.count > 1, scalars.last == 0x200D { scalars.removeLast() }
    }

    private func attributesAndPair(of style: Style) -> (attr_t, Int16) {
        var attrs = cn_a_normal()
        if style.bold { attrs |= cn_a_bold() }
        if style.dim { attrs |= cn_a_dim() }
        if style.reverse { attrs |= cn_a_reverse() }
        if style.underline { attrs |= cn_a_underline() }
        var pair: Int16 = 0
        if let role = style.color {
            if hasColors {
                pair = Int16(role.rawValue)
            } else {
                // Monochrome (or NO_COLOR): express the role with attributes.
                switch role {
                case .accent, .success, .today: attrs |= cn_a_bold()
                case .warning: attrs |= cn_a_underline()
                case .error, .overdue: attrs |= cn_a_bold() | cn_a_underline()
                case .muted, .tag: attrs |= cn_a_dim()
                }
            }
        }
        return (attrs, pair)
    }

    private func decodeFunctionKey(_ code: Int32) -> Key? {
        switch code {
        case cn_key_up(): return .up
        case cn_key_down(): return .down
        case cn_key_left(): return .left
        case cn_key_right(): return .right
        case cn_key_ppage(): return .pageUp
        case cn_key_npage(): return .pageDown
        case cn_key_home(): return .home
        case cn_key_end(): return .end
        case cn_key_backspace(): return .backspace
        case cn_key_dc(): return .delete
        case cn_key_btab(): return .backTab
        case cn_key_enter(): return .enter
        case cn_key_resize(): return .resize
        case (cn_key_f0() + 1)...(cn_key_f0() + 12): return .function(Int(code - cn_key_f0()))
        default: return nil
        }
    }
}
