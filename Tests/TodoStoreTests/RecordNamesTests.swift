import Foundation
import Testing
import TodoStore

@Suite("Record names") struct RecordNamesTests {
    /// The millisecond a version-7 name was made in.
    static func millis(_ name: String) -> UInt64? {
        UInt64(name.replacingOccurrences(of: "-", with: "").prefix(12), radix: 16)
    }

    @Test func namesAreVersion7UUIDsOfThisMoment() throws {
        let before = UInt64(Date().timeIntervalSince1970 * 1000)
        let name = RecordNames.next()
        let after = UInt64(Date().timeIntervalSince1970 * 1000)
        #expect(UUID(uuidString: name) != nil && name == name.lowercased() && name.count == 36)
        let characters = Array(name)
        #expect(characters[14] == "7", "version 7: \(name)")
        #expect("89ab".contains(characters[19]), "the RFC variant: \(name)")
        let made = try #require(Self.millis(name))
        // Names made in one millisecond may run up to a few milliseconds ahead of the clock, never behind it.
        #expect(made >= before && made <= after + 1_000, "\(made) outside \(before)...\(after)")
    }

    @Test func everyNameSortsAfterTheOnesBeforeIt() {
        // Many in one millisecond, one at a time and in batches: always ascending, never repeated.
        var names: [String] = []
        for round in 0..<200 {
            if round % 10 == 0 { names += RecordNames.ascending(500) } else { names.append(RecordNames.next()) }
        }
        #expect(names.count == 20 * 500 + 180)
        #expect(zip(names, names.dropFirst()).allSatisfy { $0 < $1 }, "ascending")
        #expect(Set(names).count == names.count)
        // The short IDs come from the random end, so a burst of names made together is still told apart by them.
        let shortIDs = Set(names.map(RecordNames.shortID))
        #expect(shortIDs.count > names.count - 5, "\(names.count - shortIDs.count) short IDs repeated")
        #expect(RecordNames.ascending(0).isEmpty)
    }

    @Test func shortIDsAreTheLastEightCharacters() {
        let name = "01937b2c-5a1e-7c3d-9f00-1234abcd5678"
        #expect(RecordNames.shortID(name) == "abcd5678")
        func matches(_ id: String, _ names: [String] = [name]) -> [String] { RecordNames.matching(id, in: names) { $0 } }
        #expect(matches("abcd5678") == [name] && matches("01937b2c") == [name])
        #expect(matches("").isEmpty && matches("5a1e").isEmpty)
        // An end matched wins over a start matched, as for todos.
        let other = "abcd5678-0000-7000-8000-000000000001"
        #expect(matches("abcd5678", [name, other]) == [name])
    }

    @Test func anIDFindsATodoByItsEndThenByItsStart() async throws {
        try await withTemporaryStore { store, _ in
            let names = ["019a0000-0000-7000-8000-0000aa11cc33", "019a0000-0000-7000-8000-0000bb22cc33", "019b1111-0000-7000-8000-0000dd44ee55"]
            try await store.applyZoneChanges(
                .privateTodos, records: names.enumerated().map { serverRecord($1, title: "\($0)") }, token: nil, moreComing: false)
            #expect(try await store.todo(matchingID: "aa11cc33").title == "0", "the short ID shown")
            #expect(try await store.todo(matchingID: "ee55").title == "2", "any unique end")
            #expect(try await store.todo(matchingID: "019b").title == "2", "any unique start")
            #expect(try await store.todo(matchingID: names[1]).title == "1", "the whole name")
            await #expect(throws: StoreError.ambiguous("cc33")) { try await store.todo(matchingID: "cc33") }
            await #expect(throws: StoreError.ambiguous("019a")) { try await store.todo(matchingID: "019a") }
            await #expect(throws: StoreError.notFound("zz")) { try await store.todo(matchingID: "zz") }
        }
    }
}
