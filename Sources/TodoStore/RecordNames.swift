import Foundation
import Synchronization
import TodoPlanning

/// Names for records this device creates: time-ordered UUIDs (RFC 9562 version 7), lowercased.
///
/// The first 48 bits are the creation time in milliseconds and the last 74 are random. Records created one after
/// another therefore get names that ascend, and every B-tree keyed by name — the cache's records and outbox here, the
/// cloud's name index there — grows at its end instead of at random pages. With random (version 4) names, each commit
/// of a large upload rewrote pages spread over the whole index on both sides: sending 10,000 todos wrote about 22 MB of
/// WAL in the cloud for 4 MB of records.
///
/// The random part is at the end, so the command line shows a name's last characters as its short ID (`shortID`).
public enum RecordNames {
    /// What the last name handed out in this process was made of, so names made within one millisecond still ascend.
    private struct Last {
        var millis: UInt64 = 0
        var random: (UInt64, UInt64) = (0, 0)
    }

    private static let last = Mutex(Last())

    /// A fresh name, after every name this process made before.
    public static func next() -> String { ascending(1)[0] }

    /// `count` fresh names in ascending order, all after every name this process made before.
    ///
    /// They share one millisecond when they fit in it; the random parts are drawn together and sorted.
    public static func ascending(_ count: Int) -> [String] {
        guard count > 0 else { return [] }
        var random = randomParts(count)
        random.sort { $0 < $1 }
        let now = UInt64(max(0, Date().timeIntervalSince1970 * 1000))
        let millis = last.withLock { last -> UInt64 in
            var millis = max(now, last.millis)  // a clock that went back does not make names go back
            if millis == last.millis && random[0] <= last.random {
                // Within the last name's millisecond: one name steps a random amount past it (the clock stays put
                // however many names a second brings); a batch that does not sort after it takes the next one.
                if count == 1, let stepped = step(last.random, by: random[0].1 >> 30 + 1) {
                    random[0] = stepped
                } else {
                    millis += 1
                }
            }
            last = Last(millis: millis, random: random[count - 1])
            return millis
        }
        return random.map { format(millis: millis, random: $0) }
    }

    /// `value` (12 + 62 random bits) plus `amount`, nil past the largest.
    private static func step(_ value: (UInt64, UInt64), by amount: UInt64) -> (UInt64, UInt64)? {
        let limit = UInt64.max >> 2
        let low = value.1 &+ amount
        if low <= limit && low >= value.1 { return (value.0, low) }
        guard value.0 < 0xFFF else { return nil }
        return (value.0 + 1, low & limit)
    }

    /// How many characters of a record name the command line shows as its short ID.
    public static let shortIDLength = 8

    /// The fewest characters a command-line ID may have: a shorter one (`7`, a Taskwarrior habit) would name a todo
    /// by chance.
    public static let shortestID = 4

    /// The short ID the command line shows for a record name: its last eight characters (random in every UUID; an
    /// occurrence of a repeating todo ends in `-N`, its number).
    public static func shortID(_ recordName: String) -> String { String(recordName.suffix(shortIDLength)) }

    /// Whether `id` can name a record at all: at least `shortestID` characters, none of them a space or control.
    public static func isNameable(_ id: String) -> Bool {
        id.count >= shortestID && id.count <= 200 && !id.unicodeScalars.contains { $0.value <= 0x20 || $0.value == 0x7F }
    }

    /// What an ID given on the command line names among `items` (docs/USAGE.md, "Naming a todo"): the one whose
    /// whole name or short ID is exactly `id`, else those whose short ID starts with it (up to eight characters given)
    /// or whose whole name starts with it (more given) — never an end or a middle of a name. The rule
    /// `TodoStore.todos(matchingID:)` applies in SQL.
    public static func matching<T>(_ id: String, in items: [T], name: (T) -> String) -> [T] {
        let id = id.lowercased()
        guard isNameable(id) else { return [] }
        let exact = items.filter { name($0) == id || shortID(name($0)) == id }
        if !exact.isEmpty { return exact }
        if id.count <= shortIDLength { return items.filter { shortID(name($0)).hasPrefix(id) } }
        return items.filter { name($0).hasPrefix(id) }
    }

    /// `count` draws of 74 random bits: 12 in the first word, 62 in the second.
    private static func randomParts(_ count: Int) -> [(UInt64, UInt64)] {
        // The system's random bytes for all of them in one read (the standard generator makes a system call per
        // word); the standard generator if the device cannot be read.
        var words = [UInt64](repeating: 0, count: 2 * count)
        let bytes = count > 1 ? FileHandle(forReadingAtPath: "/dev/urandom").flatMap { try? $0.read(upToCount: 16 * count) } : nil
        if let bytes, bytes.count == 16 * count {
            words.withUnsafeMutableBytes { _ = bytes.copyBytes(to: $0) }
        } else {
            var generator = SystemRandomNumberGenerator()
            for index in words.indices { words[index] = generator.next() }
        }
        return (0..<count).map { (words[2 * $0] & 0xFFF, words[2 * $0 + 1] & (UInt64.max >> 2)) }
    }

    /// `8-4-4-4-12` lowercase hexadecimal of the time (48 bits), version 7, 12 random bits (of `random.0`), the RFC
    /// variant and 62 random bits (of `random.1`).
    public static func format(millis: UInt64, random: (UInt64, UInt64)) -> String {
        let high = (millis & 0xFFFF_FFFF_FFFF) << 16 | 0x7000 | random.0 & 0xFFF
        let low = 0x8000_0000_0000_0000 | random.1 & (UInt64.max >> 2)
        return UUIDText.format(high: high, low: low)
    }
}
