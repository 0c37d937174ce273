import Foundation
import Testing
import TodoPlanning

/// The canonical UUID text both ways, against Foundation's own spelling of the same bytes.
@Suite("UUID text")
struct UUIDTextTests {
    @Test func formatAndParseAgreeWithFoundation() {
        for _ in 0..<1_000 {
            let uuid = UUID()
            let text = uuid.uuidString.lowercased()
            let words = withUnsafeBytes(of: uuid.uuid) { bytes in
                (bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }, bytes.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
            }
            #expect(UUIDText.format(high: words.0, low: words.1) == text)
            let parsed = UUIDText.parse(text)
            #expect(parsed?.high == words.0 && parsed?.low == words.1, "\(text)")
        }
        #expect(UUIDText.format(high: 0, low: 1) == "00000000-0000-0000-0000-000000000001")
        #expect(UUIDText.format(high: .max, low: .max) == "ffffffff-ffff-ffff-ffff-ffffffffffff")
    }

    @Test(arguments: [
        "01A2257F-4B70-7000-8365-FE134A9FB7EB", "01a2257f4b7070008365fe134a9fb7eb", "01a2257f-4b70-7000-8365-fe134a9fb7e",
        "01a2257f-4b70-7000-8365-fe134a9fb7ebb", "01a2257f-4b70-7000-8365_fe134a9fb7eb", "01a2257g-4b70-7000-8365-fe134a9fb7eb",
        "01a2257f-4b70-7000-8365-fe134a9fb7e\u{301}", "", "-",
    ])
    func anythingButTheCanonicalFormIsRefused(_ text: String) {
        #expect(UUIDText.parse(text) == nil)
    }
}
