import CloudClient
import Foundation
import Testing
import TestSupport

/// The session file every command reads, read with our own JSON parser: what `SecretFile.writeJSON` writes comes
/// back whole, and a damaged or hostile file is refused, never read more leniently than Foundation's decoder reads it.
@Suite("Session files")
struct SessionFileTests {
    static let kept = Credentials(
        server: "http://127.0.0.1:8787", account: "ana \u{1B}[31m", deviceName: "lap\"top\\", userRecordName: "_ana",
        deviceID: "D-1", ckWebAuthToken: "token+/=")

    /// The bytes `SecretFile.writeJSON` writes for `credentials`.
    static func written(_ credentials: Credentials) throws -> Data {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("session-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("main.json")
        try SecretFile.writeJSON(credentials, to: file)
        return try #require(SecretFile.read(file))
    }

    @Test func whatIsWrittenIsReadBack() throws {
        let data = try Self.written(Self.kept)
        #expect(Credentials(sessionFile: data) == Self.kept)
        #expect(Credentials(sessionFile: try JSONEncoder().encode(Self.kept)) == Self.kept, "compact JSON too")
    }

    @Test(arguments: [
        "", "null", "[]", "\"text\"", "{}", "{\"server\": 1}", "{\"server\":\"a\",\"account\":\"b\",\"deviceName\":\"c\",\"userRecordName\":\"d\",\"deviceID\":\"e\"}",
        "{\"server\":\"a\",\"account\":\"b\",\"deviceName\":\"c\",\"userRecordName\":\"d\",\"deviceID\":\"e\",\"ckWebAuthToken\":null}",
        String(repeating: "[", count: 10_000), "{\"server\":\"a\"", "\u{FEFF}{}",
    ])
    func aFileOfAnotherShapeIsRefused(_ text: String) {
        #expect(Credentials(sessionFile: Data(text.utf8)) == nil)
    }

    @Test func damagedFilesAreNeverReadMoreLenientlyThanFoundationReadsThem() throws {
        let data = try Self.written(Self.kept)
        var random = SplitMix(seed: 4_177)
        var refused = 0
        for _ in 0..<3_000 {
            var bytes = [UInt8](data)
            switch Int.random(in: 0..<3, using: &random) {
            case 0: bytes.removeLast(Int.random(in: 1...bytes.count, using: &random))
            case 1: bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            default: bytes.insert(UInt8.random(in: 0...255, using: &random), at: Int.random(in: 0...bytes.count, using: &random))
            }
            let ours = Credentials(sessionFile: Data(bytes))
            if ours == nil { refused += 1; continue }
            #expect(ours == (try? JSONDecoder().decode(Credentials.self, from: Data(bytes))), "\(String(decoding: bytes, as: UTF8.self))")
        }
        #expect(refused > 1_000, "most damage is refused: \(refused)")
    }
}
