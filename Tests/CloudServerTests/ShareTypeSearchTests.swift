import Foundation
import Testing

@testable import CloudServer

/// The byte search that sends a `records/modify` body to the share path: found wherever the type is, never elsewhere.
@Suite("Share type search in modify bodies")
struct ShareTypeSearchTests {
    @Test func findsTheTypeAnywhereAndNothingElse() {
        let type = #""cloudkit.share""#
        let found = [
            type, "x" + type, type + "x", #"{"recordType":"cloudkit.share"}"#, "a.b." + type + ".c", String(repeating: ".", count: 40) + type,
        ]
        let absent = [
            "", ".", #""cloudkit.shar""#, #"cloudkit.share""#, #""cloudkit.share"#, #""cloudkit_share""#, #""Cloudkit.share""#,
            String(repeating: "\"cloudkit.", count: 30), "notes. More notes. \"cloudkit\".share",
        ]
        for body in found { #expect(CloudService.mentionsShareType(Data(body.utf8)), "\(body)") }
        for body in absent { #expect(!CloudService.mentionsShareType(Data(body.utf8)), "\(body)") }
        // Every position in a longer body, as the old search found it.
        for position in 0...40 {
            var bytes = Array(repeating: UInt8(ascii: "."), count: 40)
            bytes.insert(contentsOf: Array(type.utf8), at: position)
            #expect(CloudService.mentionsShareType(Data(bytes)))
            #expect(Data(bytes).range(of: Data(type.utf8)) != nil)
        }
    }
}
