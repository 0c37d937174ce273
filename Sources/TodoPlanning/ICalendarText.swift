import Foundation

/// iCalendar (RFC 5545) files of VTODOs: `encode` writes them, `decode` reads them.
public enum ICalendar {}

/// The text layer: TEXT escaping, comma lists, line folding, unfolding and content lines.
extension ICalendar {
    /// One unfolded content line: `NAME;PARAM=VALUE:value`.
    struct ContentLine {
        /// The property or keyword name, uppercased (`DUE`, `BEGIN`); empty for a line that is not `NAME:value`.
        var name: String
        /// Parameters by uppercased name; the first value of each, quotes removed.
        var parameters: [String: String]
        /// Everything after the first unquoted colon.
        var value: String
        /// The physical line (1-based) the content line starts on.
        var lineNumber: Int
    }

    /// `text` as an iCalendar TEXT value: `\`, `;`, `,` and line breaks escaped; other control characters but tab dropped.
    static func escape(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var previousCR = false
        for scalar in text.unicodeScalars {
            defer { previousCR = scalar == "\r" }
            switch scalar {
            case "\\", ";", ",":
                out.append("\\")
                out.append(scalar)
            case "\r":
                out.append(contentsOf: "\\n".unicodeScalars)
            case "\n":
                if !previousCR { out.append(contentsOf: "\\n".unicodeScalars) }
            case "\t":
                out.append(scalar)
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F { continue }
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// The text of an escaped TEXT value: `\n` a line break, `\\` `\;` `\,` themselves; control characters but tab dropped.
    static func unescape(_ value: some StringProtocol) -> String {
        var out = String.UnicodeScalarView()
        var escaping = false
        for scalar in value.unicodeScalars {
            if escaping {
                escaping = false
                switch scalar {
                case "n", "N": out.append("\n")
                case "\\", ";", ",", ":", "\"": out.append(scalar)
                default:
                    out.append("\\")
                    if scalar.value >= 0x20 && scalar.value != 0x7F { out.append(scalar) }
                }
            } else if scalar == "\\" {
                escaping = true
            } else if scalar.value >= 0x20 && scalar.value != 0x7F || scalar == "\t" {
                out.append(scalar)
            }
        }
        if escaping { out.append("\\") }
        return String(out)
    }

    /// The items of a comma-separated TEXT list, still escaped (commas after a backslash do not split).
    static func splitList(_ value: String) -> [String] {
        var items: [String] = []
        var item = String.UnicodeScalarView()
        var escaping = false
        for scalar in value.unicodeScalars {
            if escaping {
                escaping = false
            } else if scalar == "\\" {
                escaping = true
            } else if scalar == "," {
                items.append(String(item))
                item = String.UnicodeScalarView()
                continue
            }
            item.append(scalar)
        }
        items.append(String(item))
        return items
    }

    /// Appends `line` to `out` folded at 75 octets (never inside a UTF-8 sequence), each physical line ended by CRLF.
    static func appendFolded(_ line: String, to out: inout [UInt8]) {
        var length = 0
        var limit = 75
        let utf8 = Array(line.utf8)
        var index = 0
        while index < utf8.count {
            let lead = utf8[index]
            let width = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
            let end = min(index + width, utf8.count)
            if length + (end - index) > limit {
                out.append(contentsOf: [0x0D, 0x0A, 0x20])
                length = 1
                limit = 75
            }
            out.append(contentsOf: utf8[index..<end])
            length += end - index
            index = end
        }
        out.append(contentsOf: [0x0D, 0x0A])
    }

    /// The content lines of `text`: a leading byte-order mark dropped, CRLF or LF line ends, continuation lines
    /// (starting with a space or tab) joined to the line before, blank lines skipped; a line without a name and a colon
    /// has the name "" and its whole text as value.
    static func contentLines(_ text: String) -> [ContentLine] {
        var lines: [ContentLine] = []
        var current: [UInt8] = []
        var currentStart = 0
        var lineNumber = 0
        func flush() {
            if !current.isEmpty {
                lines.append(
                    parse(current, lineNumber: currentStart)
                        ?? ContentLine(name: "", parameters: [:], value: String(decoding: current, as: UTF8.self), lineNumber: currentStart))
            }
            current.removeAll(keepingCapacity: true)
        }
        var bytes = Substring(text).utf8[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        while !bytes.isEmpty {
            lineNumber += 1
            let end = bytes.firstIndex(of: 0x0A) ?? bytes.endIndex
            var physical = bytes[bytes.startIndex..<end]
            bytes = end < bytes.endIndex ? bytes[bytes.index(after: end)...] : bytes[bytes.endIndex...]
            if physical.last == 0x0D { physical = physical.dropLast() }
            if let first = physical.first, first == 0x20 || first == 0x09, !current.isEmpty {
                current.append(contentsOf: physical.dropFirst())
            } else {
                flush()
                if !physical.isEmpty {
                    current.append(contentsOf: physical)
                    currentStart = lineNumber
                }
            }
        }
        flush()
        return lines
    }

    /// One content line from its unfolded bytes, or nil when it has no name or no colon.
    static func parse(_ bytes: [UInt8], lineNumber: Int) -> ContentLine? {
        var index = 0
        while index < bytes.count, bytes[index] != 0x3B, bytes[index] != 0x3A { index += 1 }
        guard index > 0, index < bytes.count else { return nil }
        let name = String(decoding: bytes[0..<index], as: UTF8.self).uppercased()
        var parameters: [String: String] = [:]
        while index < bytes.count, bytes[index] == 0x3B {
            index += 1
            let keyStart = index
            while index < bytes.count, bytes[index] != 0x3D, bytes[index] != 0x3A, bytes[index] != 0x3B { index += 1 }
            let key = String(decoding: bytes[keyStart..<index], as: UTF8.self).uppercased()
            var values: [String] = []
            if index < bytes.count, bytes[index] == 0x3D {
                repeat {
                    index += 1
                    if index < bytes.count, bytes[index] == 0x22 {
                        let valueStart = index + 1
                        index = valueStart
                        while index < bytes.count, bytes[index] != 0x22 { index += 1 }
                        values.append(String(decoding: bytes[valueStart..<min(index, bytes.count)], as: UTF8.self))
                        if index < bytes.count { index += 1 }
                    } else {
                        let valueStart = index
                        while index < bytes.count, bytes[index] != 0x3A, bytes[index] != 0x3B, bytes[index] != 0x2C { index += 1 }
                        values.append(String(decoding: bytes[valueStart..<index], as: UTF8.self))
                    }
                } while index < bytes.count && bytes[index] == 0x2C
            }
            if parameters[key] == nil { parameters[key] = values.first ?? "" }
        }
        guard index < bytes.count, bytes[index] == 0x3A else { return nil }
        let value = String(decoding: bytes[(index + 1)...], as: UTF8.self)
        return ContentLine(name: name, parameters: parameters, value: value, lineNumber: lineNumber)
    }
}
