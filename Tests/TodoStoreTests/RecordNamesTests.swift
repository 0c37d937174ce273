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

    @Test func shortIDsAreTheLastEightCharactersNamedByTheirStart() {
        let name = "01937b2c-5a1e-7c3d-9f00-1234abcd5678"
        #expect(RecordNames.shortID(name) == "abcd5678")
        func matches(_ id: String, _ names: [String] = [name]) -> [String] { RecordNames.matching(id, in: names) { $0 } }
        #expect(matches("abcd5678") == [name] && matches("abcd") == [name] && matches("ABCD56") == [name], "the short ID or its start")
        #expect(matches(name) == [name] && matches("01937b2c-5a1e") == [name], "the whole name or a start of it past 8 characters")
        // Never an end or a middle, and never fewer than four characters.
        #expect(matches("5678").isEmpty && matches("5a1e").isEmpty && matches("8").isEmpty && matches("abc").isEmpty && matches("").isEmpty)
        #expect(matches("01937b2c").isEmpty, "eight characters are a short ID's start, not the name's")
        // An exact short ID wins over a longer one it starts (an occurrence of a repeating todo ends in -N).
        let occurrence = "01937b2c-5a1e-7c3d-9f00-1234abcd5678-2"
        #expect(RecordNames.shortID(occurrence) == "cd5678-2")
        #expect(matches("abcd5678", [name, occurrence]) == [name])
        #expect(matches("cd56", [name, occurrence]) == [occurrence])
    }

    @Test func anIDFindsATodoByTheStartOfItsShortIDOnly() async throws {
        try await withTemporaryStore { store, _ in
            let names = ["019a0000-0000-7000-8000-0000aa11cc33", "019a0000-0000-7000-8000-0000aa11dd44", "019b1111-0000-7000-8000-0000dd44ee55"]
            try await store.applyZoneChanges(
                .privateTodos, records: names.enumerated().map { serverRecord($1, title: "\($0)") }, token: nil, moreComing: false)
            func titles(_ id: String) async throws -> [String] { try await store.todos(matchingID: id).map(\.title) }
            #expect(try await titles("aa11cc33") == ["0"], "the short ID shown")
            #expect(try await titles("DD44") == ["2"], "a start of it, any case")
            #expect(try await titles(names[1]) == ["1"], "the whole name")
            #expect(try await titles("019b1111-0000") == ["2"], "a start of the whole name")
            #expect(try await titles("aa11") == ["0", "1"], "several: the caller says it is ambiguous")
            #expect(try await titles("ee55").isEmpty, "never an end")
            #expect(try await titles("019b").isEmpty, "four characters are a short ID's start")
            #expect(try await titles("5").isEmpty, "too short")
            #expect(try await titles("c33").isEmpty, "too short")
            #expect(try await store.todos(matchingID: "aa11", limit: 1).count == 1)
        }
    }
}
