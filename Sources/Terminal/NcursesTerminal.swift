import CNcurses

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The real terminal, through ncursesw: UTF-8 and wide characters, colours with a monochrome
/// fallback, resize as `.resize`, and the terminal restored on exit, on signals and on crashes.
///
/// Create one per process, from the thread that runs the UI loop, and call `shutdown()` when done
/// (the atexit hook and the signal handlers restore the terminal if you cannot).
public final class NcursesTerminal: TerminalDriver {
    private var active = false
    private let hasColors: Bool
    private var scratch: [wchar_t] = []

    /// Enters curses mode: locale from the environment, raw keys, no echo, keypad decoding.
    public init() {
        setlocale(LC_ALL, "")
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
        if has_colors() {
            start_color()
            use_default_colors()
            let colours: [(ColorRole, Int32)] = [
                (.accent, cn_color_cyan()), (.warning, cn_color_yellow()), (.error, cn_color_red()),
                (.muted, cn_color_blue()), (.success, cn_color_green()),
            ]
            for (role, colour) in colours {
                init_pair(Int16(role.rawValue), Int16(colour), -1)
            }
            hasColors = true
        } else {
            hasColors = false
        }
        active = true
    }

    deinit {
        shutdown()
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
        for row in 0..<rows {
            for col in 0..<cols {
                let cell = screen[row, col]
                if cell.isContinuation { continue }
                if cell.style != current {
                    apply(cell.style)
                    current = cell.style
                }
                scratch.removeAll(keepingCapacity: true)
                for scalar in cell.character.unicodeScalars {
                    scratch.append(wchar_t(bitPattern: scalar.value))
                }
                let count = Int32(scratch.count)
                scratch.append(0)
                _ = scratch.withUnsafeBufferPointer { cn_mvaddnwstr(Int32(row), Int32(col), $0.baseAddress, count) }
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
        case Int32(CN_INPUT_CHAR):
            return Key.decode(scalar: value)
        case Int32(CN_INPUT_KEY):
            return decodeFunctionKey(Int32(bitPattern: value))
        default:
            return nil
        }
    }

    /// Leaves curses mode and restores the terminal.
    public func shutdown() {
        guard active else { return }
        active = false
        curs_set(1)
        cn_restore_terminal()
    }

    private func apply(_ style: Style) {
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
                // Monochrome fallback: express the role with attributes.
                switch role {
                case .accent, .success: attrs |= cn_a_bold()
                case .warning: attrs |= cn_a_underline()
                case .error: attrs |= cn_a_bold() | cn_a_underline()
                case .muted: attrs |= cn_a_dim()
                }
            }
        }
        cn_attr_set(attrs, pair)
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
