import Foundation

/// The file formats todos are imported from and exported to.
public enum InterchangeFormat: String, Sendable, Hashable, CaseIterable {
    /// iCalendar VTODOs (RFC 5545).
    case ics
    /// Taskwarrior's `task export` JSON.
    case taskwarrior
    /// Our own JSON: objects with a `title`.
    case json

    /// The format named by `--format` (`ics`, `taskwarrior`, `json`, any case); nil for other names.
    public init?(name: String) {
        self.init(rawValue: name.trimmingSpacesAndTabs.lowercased())
    }

    /// The format of a file by its first bytes (byte-order mark and leading whitespace skipped): `BEGIN:VCALENDAR` is
    /// iCalendar; JSON whose first object has `description` and one of `uuid`, `entry`, `status` is Taskwarrior; JSON
    /// whose first object has `title` is ours; anything else nil. At most the first 1 MiB is looked at.
    public static func detect(_ bytes: some Collection<UInt8>) -> InterchangeFormat? {
        var rest = bytes[...]
        if rest.starts(with: [0xEF, 0xBB, 0xBF]) { rest = rest.dropFirst(3) }
        rest = rest.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
        guard let first = rest.first else { return nil }
        if first == 0x5B || first == 0x7B {
            let keys = firstObjectKeys(rest.prefix(1 << 20))
            if keys.contains("description"), !keys.isDisjoint(with: ["uuid", "entry", "status"]) { return .taskwarrior }
            return keys.contains("title") ? .json : nil
        }
        let marker = Array("BEGIN:VCALENDAR".utf8)
        let head = rest.prefix(marker.count).map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 }
        return head == marker ? .ics : nil
    }

    /// The keys of the first JSON object in `bytes` (its own keys, not those of nested objects), without parsing the rest.
    static func firstObjectKeys(_ bytes: some Collection<UInt8>) -> Set<String> {
        var keys: Set<String> = []
        var depth = 0
        var objectDepth = 0
        var inString = false
        var escaping = false
        var current: [UInt8] = []
        var lastString: [UInt8]?
        for byte in bytes {
            if inString {
                if escaping {
                    escaping = false
                    current.append(byte)
                } else if byte == 0x5C {
                    escaping = true
                } else if byte == 0x22 {
                    inString = false
                    lastString = current
                } else if current.count < 64 {
                    current.append(byte)
                }
                continue
            }
            switch byte {
            case 0x22:
                inString = true
                current.removeAll(keepingCapacity: true)
            case 0x3A:
                if let key = lastString, objectDepth > 0, depth == objectDepth { keys.insert(String(decoding: key, as: UTF8.self)) }
                lastString = nil
            case 0x7B:
                depth += 1
                if objectDepth == 0 { objectDepth = depth }
                lastString = nil
            case 0x5B:
                depth += 1
                lastString = nil
            case 0x7D, 0x5D:
                if byte == 0x7D, depth == objectDepth { return keys }
                depth -= 1
                lastString = nil
                if depth < 0 { return keys }
            case 0x20, 0x09, 0x0D, 0x0A:
                break
            default:
                lastString = nil
            }
        }
        return keys
    }
}
