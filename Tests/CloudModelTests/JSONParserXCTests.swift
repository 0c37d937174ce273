import CloudModel
import XCTest

/// The strict parser's edge cases, as XCTest (the rest of the suite uses Swift Testing).
final class JSONParserXCTests: XCTestCase {
    func testParsesEscapesSurrogatesAndNumbers() throws {
        let value = try JSONParser.parse(Array(#"{"s":"a\n\u00e9\ud83d\ude00","i":-12,"d":1.5e3,"b":[true,false,null]}"#.utf8))
        XCTAssertEqual(
            value,
            .object(["s": .string("a\né😀"), "i": .int(-12), "d": .double(1500), "b": .array([.bool(true), .bool(false), .null])]))
    }

    func testRefusesWhatIsNotStrictJSON() {
        let bad = [
            "{", "[1,]", "{\"a\":1,}", "01", "1.", "\"\\x\"", "\"\u{01}\"", "\"\\ud800\"", "tru", "[1] 2", "NaN",
            String(repeating: "[", count: JSONParser.maxDepth + 2) + String(repeating: "]", count: JSONParser.maxDepth + 2),
        ]
        for text in bad {
            XCTAssertThrowsError(try JSONParser.parse(Array(text.utf8)), text)
        }
        XCTAssertThrowsError(try JSONParser.parse([0x22, 0xFF, 0x22]), "invalid UTF-8")
    }
}
