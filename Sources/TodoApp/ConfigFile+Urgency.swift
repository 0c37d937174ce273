import TOMLKit
import TodoPlanning

/// config.toml's `[urgency]` table: numbers that replace Taskwarrior's coefficients of `todo next`.
extension ConfigFile {
    /// The `[urgency]` coefficients the file sets (none when it has no such table), each checked now so that a
    /// mistake is told with the file and its line rather than when `todo next` runs.
    func urgency(in root: TOMLTable, _ text: String) throws(ConfigFileError) -> [String: Double] {
        guard let value = root["urgency"] else { return [:] }
        guard let table = value.table else {
            throw error("'urgency' must be a table ([urgency])", line: line(of: "urgency", in: nil, text))
        }
        var numbers: [String: Double] = [:]
        for key in table.keys {
            let at = line(of: key, in: "urgency", text)
            // TOML writes 2 and 2.0 differently; both are a coefficient.
            guard let number = table[key]?.double ?? table[key]?.int.map(Double.init) else {
                throw error("'\(printable(key))' in [urgency] must be a number", line: at)
            }
            do {
                _ = try UrgencyCoefficients(overrides: [key: number])
            } catch {
                throw self.error("\(error.description) in [urgency]", line: at)
            }
            numbers[key] = number
        }
        return numbers
    }

    /// The `[urgency]` table of `numbers`, to write back.
    static func urgencyTable(_ numbers: [String: Double]) -> TOMLTable {
        let table = TOMLTable()
        for key in numbers.keys.sorted() { table[key] = numbers[key] }
        return table
    }
}
