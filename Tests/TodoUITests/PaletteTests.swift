import Terminal
import Testing

@Suite("Colours people configure: the [colors] table")
struct PaletteTests {
    static let colours = "black, red, green, yellow, blue, magenta, cyan, white, default or a number from 0 to 255"

    /// The error a table is refused with, or nil when it is read.
    func refusal(_ overrides: [String: String]) -> PaletteError? {
        do {
            _ = try Palette(overrides: overrides)
            return nil
        } catch {
            return error
        }
    }

    @Test func theStandardPaletteIsTodaysColours() throws {
        let standard = ColorRole.allCases.map { Palette.standard[$0].name }
        #expect(standard == ["cyan", "yellow", "red", "blue", "green", "red", "cyan", "blue"])
        #expect(Palette.roleNames == ["accent", "warning", "error", "muted", "success", "overdue", "today", "tag"])
        #expect(try Palette(overrides: [:]) == .standard)
    }

    @Test func overridesChangeTheirRolesOnly() throws {
        let palette = try Palette(overrides: ["accent": "magenta", "overdue": "196", "tag": "Default", "muted": " 8 ", "today": "007"])
        #expect(palette[.accent] == .indexed(5))
        #expect(palette[.overdue] == .indexed(196))
        #expect(palette[.tag] == .terminalDefault)
        #expect(palette[.muted] == .indexed(8))
        #expect(palette[.today] == .indexed(7))
        #expect(palette[.error] == .indexed(1))
        #expect(palette[.overdue].cursesNumber == 196)
        #expect(palette[.tag].cursesNumber == -1)
        #expect(palette[.today].name == "white")
        #expect(palette[.overdue].name == "196")
    }

    @Test func colourNamesRead() {
        let expected: [(String, TerminalColor?)] = [
            ("black", .indexed(0)), ("RED", .indexed(1)), ("white", .indexed(7)), ("default", .terminalDefault),
            ("0", .indexed(0)), ("255", .indexed(255)), ("256", nil), ("-1", nil), ("+3", nil), ("0x1f", nil),
            ("1000", nil), ("", nil), ("purple", nil), ("bright-red", nil), ("٣", nil),
        ]
        for (text, colour) in expected {
            #expect(TerminalColor(parsing: text) == colour, "\(text)")
        }
    }

    @Test func unknownRolesAreRefusedListingTheRoles() {
        let error = refusal(["accent": "red", "title": "blue", "border": "red"])
        #expect(error == .unknownRole("border"))
        #expect(error?.description == "\"border\" in [colors] is not a colour role; the roles are accent, warning, error, muted, success, overdue, today, tag.")
    }

    @Test func unknownColoursAreRefusedListingTheColours() {
        let error = refusal(["warning": "purple", "tag": "300"])
        #expect(error == .unknownColor(role: .warning, value: "purple"))
        #expect(error?.description == "warning = \"purple\" in [colors] is not a colour; colours are \(Self.colours).")
        #expect(refusal(["tag": "300"])?.description == "tag = \"300\" in [colors] is not a colour; colours are \(Self.colours).")
    }

    @Test func hostileTextIsShownSanitised() {
        let role = refusal(["acc\u{1B}[2Jent\r": "red"])
        #expect(role?.description == "\"acc␛[2Jent \" in [colors] is not a colour role; the roles are accent, warning, error, muted, success, overdue, today, tag.")
        let colour = refusal(["error": "red\u{9B}31m\u{7F}\u{2067}" + String(repeating: "x", count: 100)])
        #expect(colour?.description
            == "error = \"red�31m␡�\(String(repeating: "x", count: 30))…\" in [colors] is not a colour; colours are \(Self.colours).")
    }
}
