import Testing
import TestSupport
import TodoStore

/// File names made from account and device names: the byte-checked fast path gives what the character-by-character
/// rule gives, for the names people type and for hostile ones.
@Suite("Safe file names")
struct SafeNameTests {
    /// The rule, character by character: allowed ASCII kept, anything else one `_`, no leading dot, never empty.
    static func reference(_ name: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.@+")
        var safe = String(name.map { allowed.contains($0) ? $0 : "_" })
        while safe.hasPrefix(".") { safe = "_" + safe.dropFirst() }
        return safe.isEmpty ? "_" : safe
    }

    @Test(arguments: [
        "alice", "main", "bob@example.org", "a.b-c_d+e", "", ".", "..", ".hidden", "a/b", "../etc", "é", "e\u{301}", "ﬁ", "a b",
        "Ärger", "x\u{0}y", "\u{1B}[31m", "🙂", "a.", "-", "tab\there",
    ])
    func theFastPathGivesWhatTheRuleGives(_ name: String) {
        #expect(CacheLocation.safeName(name) == Self.reference(name), "\(name.unicodeScalars.map(\.value))")
    }

    @Test func randomNamesGiveWhatTheRuleGives() {
        var random = SplitMix(seed: 353)
        let pieces = ["a", "Z", "9", ".", "-", "_", "@", "+", "/", " ", "é", "e\u{301}", "\u{0}", "\u{7F}", "🙂", ":", "\\"]
        for _ in 0..<2_000 {
            let name = (0..<Int.random(in: 0...8, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            #expect(CacheLocation.safeName(name) == Self.reference(name), "\(name.unicodeScalars.map(\.value))")
        }
    }
}
