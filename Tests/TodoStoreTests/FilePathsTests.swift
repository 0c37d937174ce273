import Foundation
import Testing
import TestSupport
import TodoStore

/// The paths commands open, made from their text: the same files Foundation's appending and `path` name.
@Suite("File paths from their text")
struct FilePathsTests {
    static let bases = ["/", "/tmp", "/tmp/", "/home/a b", "/data/100% sure", "/data/ünïcode", "/a/./b", "/x/y?z#w", "/dir/with;semi"]
    static let relatives = ["config", "sessions/origin/alice/main.json", ".config/cloudtodo", "devices/a b/é.sqlite", "x%20y", "last-cloud"]

    @Test(arguments: bases)
    func theSameFileFoundationNames(_ base: String) {
        let directory = URL(fileURLWithPath: base, isDirectory: true)
        for relative in Self.relatives {
            let ours = directory.appendingFilePath(relative)
            let foundations = directory.appendingPathComponent(relative)
            #expect(ours.filePath == foundations.path, "\(base) + \(relative)")
            #expect(ours.isFileURL)
            #expect(ours.standardizedFileURL.path == foundations.standardizedFileURL.path)
        }
    }

    @Test func aDirectoryWithoutItsSlashStillJoinsWithOne() {
        let directory = URL(filePath: "/tmp/config", directoryHint: .notDirectory)
        #expect(directory.appendingFilePath("config.toml").filePath == "/tmp/config/config.toml")
        #expect(URL(fileURLWithPath: "/").appendingFilePath("x").filePath == "/x")
    }

    @Test func theTextIsThePathNotItsEscapes() {
        let file = URL(fileURLWithPath: "/tmp/a b/100%.json")
        #expect(file.filePath == "/tmp/a b/100%.json")
        #expect(file.filePath == file.path)
    }

    @Test func randomNamesNameTheSameFiles() {
        var random = SplitMix(seed: 2_911)
        let pieces = ["a", "Z", "9", ".", "-", "_", " ", "é", "%", "%41", "#", "?", ";", "🙂", "+", "@"]
        for _ in 0..<500 {
            let name = (0..<Int.random(in: 1...10, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            guard name != ".", name != ".." else { continue }
            let directory = URL(fileURLWithPath: "/tmp/files", isDirectory: true)
            #expect(directory.appendingFilePath(name).filePath == directory.appendingPathComponent(name).path, "\(name)")
        }
    }
}
