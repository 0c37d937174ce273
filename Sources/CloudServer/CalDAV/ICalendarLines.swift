import Foundation

/// One unfolded iCalendar content line: its uppercased property name and the line as written.
struct ICalendarLine: Sendable, Hashable {
    var name: String
    var raw: String

    /// The value after the first colon outside double quotes.
    var value: String {
        var quoted = false
        for index in raw.indices {
            let character = raw[index]
            if character == "\"" { quoted.toggle() } else if character == ":", !quoted { return String(raw[raw.index(after: index)...]) }
        }
        return ""
    }

    /// Whether a parameter `name=value` is on the line (case-insensitive).
    func hasParameter(_ name: String, _ value: String) -> Bool {
        let head = raw.prefix { $0 != ":" }.uppercased()
        return head.contains(";\(name.uppercased())=\(value.uppercased())")
    }

    init(_ raw: String) {
        self.raw = raw
        name = String(raw.prefix { $0 != ";" && $0 != ":" }).uppercased()
    }
}

/// A calendar object as a CalDAV client sends one: its VTODOs (own properties and sub-components apart), its time
/// zones, and the names of any other components (a VEVENT, which a todo collection does not take).
struct ICalendarObject: Sendable {
    /// One VTODO: its own property lines and the lines of its sub-components (VALARM), BEGIN and END included.
    struct Todo: Sendable {
        var properties: [ICalendarLine] = []
        var components: [ICalendarLine] = []
    }

    var todos: [Todo] = []
    /// VTIMEZONE components, BEGIN and END included.
    var timeZones: [ICalendarLine] = []
    /// Components beside VTODO and VTIMEZONE, uppercased.
    var others: [String] = []
    /// Whether the text starts with BEGIN:VCALENDAR and every component is closed.
    var wellFormed = false

    /// Unfolds and splits `text` (CRLF or LF line ends).
    static func lines(_ text: String) -> [String] {
        var lines: [String] = []
        for piece in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            var line = String(piece)
            if line.hasSuffix("\r") { line.removeLast() }
            if let first = line.first, first == " " || first == "\t", !lines.isEmpty {
                lines[lines.count - 1] += line.dropFirst()
            } else if !line.isEmpty {
                lines.append(line)
            }
        }
        return lines
    }

    /// The object `text` holds.
    init(_ text: String) {
        var stack: [String] = []
        var current: Todo?
        var closedAll = false
        for raw in Self.lines(text) {
            let line = ICalendarLine(raw)
            if line.name == "BEGIN" {
                let component = line.value.trimmingCharacters(in: .whitespaces).uppercased()
                if stack.isEmpty, component != "VCALENDAR" { return }
                stack.append(component)
                if stack.count == 2 {
                    if component == "VTODO" { current = Todo() } else if component != "VTIMEZONE" { others.append(component) }
                }
                if stack.count > 2, current != nil { current?.components.append(line) }
                if stack.count >= 2, stack[1] == "VTIMEZONE" { timeZones.append(line) }
                guard stack.count <= 16 else { return }
            } else if line.name == "END" {
                let component = line.value.trimmingCharacters(in: .whitespaces).uppercased()
                guard stack.last == component else { return }
                if stack.count > 2, current != nil { current?.components.append(line) }
                if stack.count >= 2, stack[1] == "VTIMEZONE" { timeZones.append(line) }
                if stack.count == 2, component == "VTODO", let todo = current {
                    todos.append(todo)
                    current = nil
                }
                stack.removeLast()
                if stack.isEmpty { closedAll = true }
            } else if stack.count == 2, current != nil {
                current?.properties.append(line)
            } else if stack.count > 2, current != nil {
                current?.components.append(line)
            } else if stack.count >= 2, stack[1] == "VTIMEZONE" {
                timeZones.append(line)
            } else if stack.isEmpty {
                return
            }
        }
        wellFormed = closedAll && stack.isEmpty
    }
}

/// Writes content lines folded at 75 octets with CRLF ends, as RFC 5545 asks.
enum ICalendarFolding {
    static func append(_ line: String, to out: inout String) {
        var count = 0
        for character in line {
            let width = String(character).utf8.count
            if count + width > 75 {
                out += "\r\n "
                count = 1
            }
            out.append(character)
            count += width
        }
        out += "\r\n"
    }
}
