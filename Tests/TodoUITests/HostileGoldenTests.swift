import HostileTextSupport
import Terminal
import Testing
import TodoUI

/// Golden screens of another account's hostile text: a public post and a shared list whose title, owner name and
/// todo carry escape sequences, C1, bidi controls, zero-width characters and the family emoji.
@Suite("Hostile text: golden screens")
@MainActor
struct HostileGoldenTests {
    static let list = TodoRow(
        id: "S1", title: "List\u{1B}[2J\u{9B}H\u{202E}tsil 👨‍👩‍👧\u{200B}", scope: .shared, canUpdate: false, canDelete: false,
        trashBehaviour: .refuse(reason: "only its owner can delete it"), lockReason: "only its owner can rename it", kind: .list,
        sharing: ListSharing(owner: "mal\u{1B}]0;x\u{07}lory\u{2066}", access: .readWrite))
    static let rows: [TodoRow] = [
        list,
        TodoRow(id: "s1", title: "Todo\u{1B}]52;c;cGF5bG9hZA==\u{07}\u{2067}x\u{FEFF} \u{85}next", scope: .shared, listID: "S1"),
        TodoRow(
            id: "p1", title: HostileText.showcase, notes: "line\none\u{1B}[A", scope: .public, canUpdate: false, canDelete: false,
            trashBehaviour: .refuse(reason: "only mallory can change it"), lockReason: "posted by mal\u{9B}lory", owner: "mal\u{1B}[31mlory"),
    ]

    @Test func sharedTab() {
        let (session, terminal) = makeSession(rows: Self.rows, width: 70, height: 8)
        press(session, .tab)
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
             Todos 0  [Shared 1]  Public 1   T Today
            >List␛[2J�H�tsil 👨‍👩‍👧 · 1 open · mal␛]0;x␇lory�'s · read-write
             [ ] Todo␛]52;c;cGF5bG9hZA==␇�x �next



            Only its owner can rename it.                                      1/2
            """)
    }

    @Test func publicBoard() {
        let (session, terminal) = makeSession(rows: Self.rows, width: 100, height: 12)
        press(session, .backTab)
        expectScreen(terminal, """
            CloudTodo · alice · laptop · online · synced 2 s ago
             Todos 0   Shared 1  [Public 1]  T Today
            >[ ] Pay␛]0;PWNED␇ ␛]52;c;cm0gLXJmIH4=␇�31m red�gnp.exe�x� abcd 👨‍👩‍👧 é                              RO








            Posted by mal�lory.                                                                              1/1
            """)
    }
}
