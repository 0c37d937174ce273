import Foundation
import Testing
@testable import TodoUI

/// Row ids in the canonical UUID form are held in 16 bytes; every id must still read back, compare and sort exactly
/// as its text does, whichever form holds it.
@Suite("Packed row ids")
struct RowIDTests {
    /// Ids in every shape a row meets: UUIDs as devices make them, and what another client or a zone prefix gives.
    static let texts: [String] = [
        "01a2257f-4b70-7000-8365-fe134a9fb7eb", "ffffffff-ffff-ffff-ffff-ffffffffffff", "00000000-0000-0000-0000-000000000001",
        "00000000-0000-0000-0000-000000000000",  // the nil UUID: its bits are the "not packed" mark, so kept as text
        "01A2257F-4B70-7000-8365-FE134A9FB7EB",  // upper case: not canonical, kept as written
        "01a2257f4b7070008365fe134a9fb7eb", "01a2257f-4b70-7000-8365-fe134a9fb7e", "01a2257f-4b70-7000-8365-fe134a9fb7ebb",
        "01a2257f-4b70-7000-8365_fe134a9fb7eb", "01a2257g-4b70-7000-8365-fe134a9fb7eb", "{01a2257f-4b70-7000-8365-fe134a9fb7e}",
        "", "r1", "Todo", "zone\u{1F}01a2257f-4b70-7000-8365-fe134a9fb7eb", "é01a2257f-4b70-7000-8365-fe134a9fb7e",
        "01a2257f-4b70-7000-8365-fe134a9fb7e\u{301}", "\u{0}", "写周报",
    ]

    @Test(arguments: texts)
    func everyIdReadsBackAsWritten(_ text: String) {
        let row = TodoRow(id: text, title: "A")
        #expect(row.id == text)
        #expect(row.key == RowKey(text))
        let packs = text.wholeMatch(of: /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/) != nil
            && text != "00000000-0000-0000-0000-000000000000"
        #expect(PackedUUID(text).isNone == !packs, "\(text)")
        if packs { #expect(PackedUUID(text).text == text) }
    }

    @Test func randomUUIDsRoundTrip() {
        for _ in 0..<2_000 {
            let text = UUID().uuidString.lowercased()
            #expect(PackedUUID(text).text == text)
            #expect(TodoRow(id: text, title: "A").id == text)
        }
    }

    @Test func idsSortAsTheirTextDoes() {
        var generator = SystemRandomNumberGenerator()
        let ids = Self.texts + (0..<300).map { _ in UUID().uuidString.lowercased() }
            + (0..<50).map { _ in String(UUID().uuidString.lowercased().prefix(Int.random(in: 0...36, using: &generator))) }
        let rows = ids.map { TodoRow(id: $0, title: "A") }
        for a in rows {
            for b in rows.prefix(60) {
                #expect(TodoRow.idPrecedes(a, b) == (a.id < b.id), "\(a.id) against \(b.id)")
            }
        }
    }

    @Test func changingTheIdBetweenFormsLeavesNoTrace() {
        let uuid = "01a2257f-4b70-7000-8365-fe134a9fb7eb"
        var row = TodoRow(id: uuid, title: "A", owner: "bob")
        row.id = "zone\u{1F}r1"
        #expect(row.id == "zone\u{1F}r1" && row.owner == "bob")
        row.id = uuid
        #expect(row == TodoRow(id: uuid, title: "A", owner: "bob"), "nothing of the text id is left")
        var plain = TodoRow(id: "r1", title: "A")
        plain.id = uuid
        #expect(plain == TodoRow(id: uuid, title: "A"))
        #expect(MemoryLayout<TodoRow>.stride == 104, "a packed id takes no more room than the string it replaces")
    }

    @Test func lookupsFindEitherForm() {
        let ids = Self.texts.filter { !$0.isEmpty }
        var state = AppState(status: Fixture.online, now: Fixture.now, calendar: Fixture.utc)
        state.update(rows: ids.map { TodoRow(id: $0, title: "Todo \($0.count)") }, status: Fixture.online)
        for id in ids {
            #expect(state.row(id: id)?.id == id, "\(id)")
        }
        #expect(state.row(id: "01a2257f-4b70-7000-8365-fe134a9fb7ec") == nil)
        state.apply(RowChanges(removed: ["01a2257f-4b70-7000-8365-fe134a9fb7eb", "r1"]), status: Fixture.online)
        #expect(state.row(id: "01a2257f-4b70-7000-8365-fe134a9fb7eb") == nil && state.row(id: "r1") == nil)
        #expect(state.rows(in: .todos).count == ids.count - 2)
    }
}
