import ArgumentParser
import CloudModel
import Foundation
import Terminal
import TodoStore
import TodoSync

/// Shell completion of todo IDs, list names and tags, read from this device's cache: never from the cloud, never
/// creating a cache that does not exist. The device is the one the typed flags (`--account`, `--device`,
/// `--data-dir`, `--server`) and the saved login name.
enum CacheCompletion {
    /// Short IDs of the open todos.
    static let ids = CompletionKind.custom { words, _, _ in
        await values(words) { store in
            try await store.todos(in: .private).filter { !$0.isList && !$0.isCompleted }.map(\.shortID)
        }
    }

    /// Titles of the lists.
    static let lists = CompletionKind.custom { words, _, _ in
        await values(words) { store in try await store.todos(in: .private).filter(\.isList).map(\.title) }
    }

    /// Tags in use.
    static let tags = CompletionKind.custom { words, _, _ in
        await values(words) { store in Array(Set(try await store.todos(in: .private).flatMap(\.tags))).sorted() }
    }

    /// The device flags among the typed words.
    static func deviceFlags(_ words: [String]) -> [String] {
        let named: Set<String> = ["--account", "--device", "--data-dir", "--server", "--ca-file"]
        var flags: [String] = []
        var index = 0
        while index < words.count {
            let word = words[index]
            if named.contains(word), index + 1 < words.count {
                flags += [word, words[index + 1]]
                index += 2
                continue
            }
            if let equals = word.firstIndex(of: "="), named.contains(String(word[..<equals])) { flags.append(word) }
            index += 1
        }
        return flags
    }

    /// What `read` makes of the device's cache; nothing when there is no cache or it cannot be read. Each value is
    /// one line that `sanitize` leaves as it is (no C0 or C1 control, DEL, bidi control or line separator: other
    /// accounts' text reaches the shell's line), at most 100 of them.
    private static func values(_ words: [String], _ read: (TodoStore) async throws -> [String]) async -> [String] {
        guard let group = try? DeviceOptionGroup.parse(deviceFlags(words)), let options = try? group.deviceOptions(),
            FileManager.default.fileExists(atPath: options.cacheFile.path), let store = try? await TodoStore(url: options.cacheFile)
        else { return [] }
        defer { Task { await store.close() } }
        let found = (try? await read(store)) ?? []
        return Array(found.filter { !$0.isEmpty && sanitize($0) == $0 }.prefix(100))
    }
}
