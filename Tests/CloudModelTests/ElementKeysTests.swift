import Testing

@testable import CloudModel

/// `JSONParser.forEachElement(of:keeping:)` keeps a member by its key's characters, however the key is spelled.
@Suite("Kept members of list elements")
struct ElementKeysTests {
    static let names = ["title", "notes", "due", "priority", "tags", "repeatFrom", "K", ""]

    /// What each element kept, by name.
    static func kept(_ json: String) throws -> [[String: JSONValue]] {
        var elements: [[String: JSONValue]] = []
        _ = try JSONParser.forEachElement(of: Array(json.utf8), keeping: names) { _, values in
            var element: [String: JSONValue] = [:]
            for (index, value) in (values ?? []).enumerated() { if let value { element[names[index]] = value } }
            elements.append(element)
        }
        return elements
    }

    @Test func keysMatchByTheirCharactersOnly() throws {
        let elements = try Self.kept(
            #"""
            [{"title": "plain", "titles": 1, "titl": 2, "Title": 3, "due": "d"},
             {"\u0074itle": "escaped", "r\u0065peatFrom": "completion", "\u212A": "kelvin", "": "empty"},
             {"K": "k", "notes\u0000": "nul", "priority": 2, "priority": 3},
             {"tags": ["a"], "tagsx": ["b"], "t": 0}, 7]
            """#)
        #expect(elements.count == 5)
        #expect(elements[0] == ["title": .string("plain"), "due": .string("d")])
        // An escaped key is the key it decodes to; the Kelvin sign is not K, though Swift's `==` finds them equal.
        #expect(elements[1] == ["title": .string("escaped"), "repeatFrom": .string("completion"), "": .string("empty")])
        #expect(elements[2] == ["K": .string("k"), "priority": .int(3)])
        #expect(elements[3] == ["tags": .array([.string("a")])])
        #expect(elements[4] == [:])
    }
}
