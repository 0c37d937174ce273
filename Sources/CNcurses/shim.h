// CNcurses: the part of ncursesw that the Terminal module needs, in a shape Swift 6 can import.
//
// Wide-character APIs (get_wch, mvaddnwstr) need these two macros before the header.
// Macros and C globals that Swift cannot import, or that strict concurrency rejects
// (stdscr, LINES, COLS, COLOR_PAIR, A_*, KEY_*, ERR/OK), are wrapped in static inline accessors.
//
// The restore-on-exit machinery (atexit hook and signal handlers) lives here in C so that the
// signal handlers stay async-signal-safe in spirit: they only call endwin() and re-raise.
// Only one Swift file (NcursesTerminal.swift) may use the cn_* restore functions, because the
// statics inside these static inline functions are private to each object file that uses them.
#ifndef CNCURSES_SHIM_H
#define CNCURSES_SHIM_H

#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif

#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <ncursesw/curses.h>

// MARK: globals

static inline WINDOW *cn_stdscr(void) { return stdscr; }
static inline int cn_lines(void) { return LINES; }
static inline int cn_cols(void) { return COLS; }
static inline int cn_err(void) { return ERR; }
static inline int cn_ok(void) { return OK; }

// MARK: attributes and colours

static inline attr_t cn_a_normal(void) { return A_NORMAL; }
static inline attr_t cn_a_reverse(void) { return A_REVERSE; }
static inline attr_t cn_a_bold(void) { return A_BOLD; }
static inline attr_t cn_a_dim(void) { return A_DIM; }
static inline attr_t cn_a_underline(void) { return A_UNDERLINE; }
static inline attr_t cn_color_pair(int n) { return (attr_t)COLOR_PAIR(n); }
static inline int cn_color_black(void) { return COLOR_BLACK; }
static inline int cn_color_red(void) { return COLOR_RED; }
static inline int cn_color_green(void) { return COLOR_GREEN; }
static inline int cn_color_yellow(void) { return COLOR_YELLOW; }
static inline int cn_color_blue(void) { return COLOR_BLUE; }
static inline int cn_color_magenta(void) { return COLOR_MAGENTA; }
static inline int cn_color_cyan(void) { return COLOR_CYAN; }
static inline int cn_color_white(void) { return COLOR_WHITE; }

/// Sets the attributes and colour pair used by the following add calls on stdscr.
static inline void cn_attr_set(attr_t attrs, short pair) { attr_set(attrs, pair, NULL); }

// MARK: drawing

/// Writes at most n wide characters at (y, x) on stdscr.
static inline int cn_mvaddnwstr(int y, int x, const wchar_t *s, int n) { return mvaddnwstr(y, x, s, n); }
/// Draws one grapheme cluster in the cell at (y, x) of stdscr: the first scalar as the cell's spacing
/// character, up to CCHARW_MAX - 1 following scalars in the same cell whatever their width. ncurses' own
/// add functions start a new cell at every spacing scalar, which tears a ZWJ emoji sequence (the family
/// emoji) into its people; kept in one cell, the sequence reaches the terminal whole and the terminal
/// draws it as one glyph.
static inline int cn_mvadd_cluster(int y, int x, const wchar_t *s, int n, attr_t attrs, short pair) {
    if (n <= 0) return ERR;
    cchar_t cell;
    memset(&cell, 0, sizeof cell);
    wchar_t first[2] = { s[0], L'\0' };
    if (setcchar(&cell, first, attrs, pair, NULL) == ERR) return ERR;
    for (int i = 1; i < n && i < CCHARW_MAX; i++) cell.chars[i] = s[i];
    return mvadd_wch(y, x, &cell);
}

extern int wcwidth(wchar_t);

/// The columns the C library (and so ncurses) gives one scalar: -1 unprintable, 0, 1 or 2.
static inline int cn_wcwidth(wchar_t c) { return wcwidth(c); }

/// How many scalars one cell can hold (CCHARW_MAX).
static inline int cn_cell_scalars(void) { return CCHARW_MAX; }

/// Moves the stdscr cursor.
static inline int cn_move(int y, int x) { return move(y, x); }

// MARK: terminal capabilities

// From <term.h>, which defines lower-case macros (lines, columns...) we would rather not import.
struct term;
extern int setupterm(const char *, int, int *);
extern struct term *set_curterm(struct term *);
extern int del_curterm(struct term *);

/// Whether the terminal `name` (NULL: $TERM) can show the app: 1 yes; 0 terminfo does not know it, or knows it
/// only as a generic type; -1 no terminfo database; -2 it cannot address the cursor or clear the screen (dumb).
static inline int cn_terminal_support(const char *name) {
    int err = 0;
    if (setupterm(name, 1, &err) != OK) return err == -1 ? -1 : 0;
    const char *cup = tigetstr("cup");
    const char *clear = tigetstr("clear");
    int usable = cup != NULL && cup != (char *)-1 && clear != NULL && clear != (char *)-1;
    del_curterm(set_curterm(NULL));
    return usable ? 1 : -2;
}

// MARK: keys

static inline int cn_key_code_yes(void) { return KEY_CODE_YES; }
static inline int cn_key_up(void) { return KEY_UP; }
static inline int cn_key_down(void) { return KEY_DOWN; }
static inline int cn_key_left(void) { return KEY_LEFT; }
static inline int cn_key_right(void) { return KEY_RIGHT; }
static inline int cn_key_home(void) { return KEY_HOME; }
static inline int cn_key_end(void) { return KEY_END; }
static inline int cn_key_ppage(void) { return KEY_PPAGE; }
static inline int cn_key_npage(void) { return KEY_NPAGE; }
static inline int cn_key_backspace(void) { return KEY_BACKSPACE; }
static inline int cn_key_dc(void) { return KEY_DC; }
static inline int cn_key_ic(void) { return KEY_IC; }
static inline int cn_key_btab(void) { return KEY_BTAB; }
static inline int cn_key_enter(void) { return KEY_ENTER; }
static inline int cn_key_resize(void) { return KEY_RESIZE; }
static inline int cn_key_f0(void) { return KEY_F0; }

/// Result of cn_get_wch: nothing within the timeout, a character, or a KEY_* function key.
enum { CN_INPUT_NONE = 0, CN_INPUT_CHAR = 1, CN_INPUT_KEY = 2 };

/// Reads one wide character or key code from stdscr, honouring the timeout set with timeout().
static inline int cn_get_wch(unsigned int *value) {
    wint_t ch = 0;
    int r = get_wch(&ch);
    *value = (unsigned int)ch;
    if (r == ERR) return CN_INPUT_NONE;
    if (r == KEY_CODE_YES) return CN_INPUT_KEY;
    return CN_INPUT_CHAR;
}

// MARK: restoring the terminal on exit, on a signal and on a crash

// State lives in function-local statics: Swift emits the functions it uses, not file-scope statics.
static inline volatile sig_atomic_t *cn_active_flag(void) {
    static volatile sig_atomic_t active = 0;
    return &active;
}

static inline struct sigaction *cn_previous_actions(void) {
    static struct sigaction actions[65];
    return actions;
}

/// Leaves curses mode if it is active; safe to call more than once.
static inline void cn_restore_terminal(void) {
    if (*cn_active_flag()) {
        *cn_active_flag() = 0;
        endwin();
    }
}

/// Marks curses mode as entered, so the hooks know there is something to restore.
static inline void cn_set_active(int active) { *cn_active_flag() = active; }

static inline void cn_on_signal(int sig) {
    cn_restore_terminal();
    // Hand the signal to whoever had it before (the Swift backtracer for crashes, or the
    // default action), so the process still dies the way it would have.
    if (sig > 0 && sig < 65) {
        sigaction(sig, &cn_previous_actions()[sig], NULL);
    } else {
        signal(sig, SIG_DFL);
    }
    raise(sig);
}

static inline void cn_on_exit(void) { cn_restore_terminal(); }

/// Installs the atexit hook and the handlers for SIGINT, SIGTERM, SIGHUP, SIGQUIT and crash signals.
static inline void cn_install_restore_handlers(void) {
    static int installed = 0;
    if (installed) return;
    installed = 1;
    atexit(cn_on_exit);
    const int signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGABRT, SIGBUS, SIGILL, SIGFPE, SIGTRAP };
    for (unsigned i = 0; i < sizeof(signals) / sizeof(signals[0]); i++) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = cn_on_signal;
        sigemptyset(&action.sa_mask);
        action.sa_flags = SA_RESETHAND;
        sigaction(signals[i], &action, &cn_previous_actions()[signals[i]]);
    }
}

#endif
