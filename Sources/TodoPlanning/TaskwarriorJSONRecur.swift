import Foundation

/// Taskwarrior's `recur` periods (`weekly`, `2w`, `3d`, `biweekly`, `P1M`…) and the RRULE text they mean.
enum TaskwarriorRecur {
    /// Words that stand for a period on their own, with the RRULE they mean.
    private static let named: [String: String] = [
        "daily": "FREQ=DAILY", "day": "FREQ=DAILY", "weekdays": weekdaysRule,
        "weekly": "FREQ=WEEKLY", "week": "FREQ=WEEKLY", "sennight": "FREQ=WEEKLY",
        "biweekly": "FREQ=WEEKLY;INTERVAL=2", "fortnight": "FREQ=WEEKLY;INTERVAL=2",
        "monthly": "FREQ=MONTHLY", "month": "FREQ=MONTHLY", "bimonthly": "FREQ=MONTHLY;INTERVAL=2",
        "quarterly": "FREQ=MONTHLY;INTERVAL=3", "quarter": "FREQ=MONTHLY;INTERVAL=3", "semiannual": "FREQ=MONTHLY;INTERVAL=6",
        "yearly": "FREQ=YEARLY", "year": "FREQ=YEARLY", "annual": "FREQ=YEARLY", "annually": "FREQ=YEARLY",
        "biannual": "FREQ=YEARLY;INTERVAL=2", "biyearly": "FREQ=YEARLY;INTERVAL=2",
    ]

    /// Units after a count (`3d`, `2 weeks`): the RRULE frequency and how many of it one unit is.
    private static let units: [String: (freq: String, times: Int)] = [
        "d": ("DAILY", 1), "day": ("DAILY", 1), "days": ("DAILY", 1),
        "w": ("WEEKLY", 1), "wk": ("WEEKLY", 1), "wks": ("WEEKLY", 1), "week": ("WEEKLY", 1), "weeks": ("WEEKLY", 1),
        "mo": ("MONTHLY", 1), "mos": ("MONTHLY", 1), "mth": ("MONTHLY", 1), "mths": ("MONTHLY", 1), "month": ("MONTHLY", 1),
        "months": ("MONTHLY", 1), "q": ("MONTHLY", 3), "qtr": ("MONTHLY", 3), "qtrs": ("MONTHLY", 3), "quarter": ("MONTHLY", 3),
        "quarters": ("MONTHLY", 3), "y": ("YEARLY", 1), "yr": ("YEARLY", 1), "yrs": ("YEARLY", 1), "year": ("YEARLY", 1),
        "years": ("YEARLY", 1),
    ]

    /// Monday to Friday, daily.
    static let weekdaysRule = "FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR"

    /// The RRULE text of a Taskwarrior period, or nil when it has none (hours, minutes, unknown words).
    static func rule(from recur: String) -> String? {
        let text = recur.trimmingCharacters(in: .whitespaces).lowercased()
        guard text.utf8.count <= 40 else { return nil }
        if let rule = named[text] { return rule }
        var rest = Substring(text)
        if rest.hasPrefix("p"), rest.count >= 3 {
            rest = rest.dropFirst()
            guard let unit = rest.last, "dwmy".contains(unit) else { return nil }
            return make(count: rest.dropLast(), unit: unit == "m" ? "mo" : String(unit))
        }
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        return make(count: digits, unit: rest.dropFirst(digits.count).trimmingCharacters(in: .whitespaces))
    }

    private static func make(count: Substring, unit: String) -> String? {
        guard let (freq, times) = units[unit] else { return nil }
        let number = count.isEmpty ? 1 : Int(count) ?? 0
        let interval = number * times
        guard (1...999).contains(interval), count.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return interval == 1 ? "FREQ=\(freq)" : "FREQ=\(freq);INTERVAL=\(interval)"
    }

    /// The Taskwarrior period of an RRULE, or nil when Taskwarrior cannot say it. A BYDAY, BYMONTHDAY or BYMONTH
    /// naming the due date's own weekday, day or month adds nothing and is accepted; COUNT, UNTIL and others are not.
    static func word(from rule: String, due: DueDate?, calendar: Calendar) -> String? {
        var parts: [String: String] = [:]
        for part in rule.uppercased().split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, parts[pair[0]] == nil else { return nil }
            parts[pair[0]] = pair[1]
        }
        guard let freq = parts.removeValue(forKey: "FREQ") else { return nil }
        let interval = Int(parts.removeValue(forKey: "INTERVAL") ?? "1") ?? 0
        parts["WKST"] = nil
        guard (1...999).contains(interval) else { return nil }
        if let byDay = parts["BYDAY"], Set(byDay.split(separator: ",")) == ["MO", "TU", "WE", "TH", "FR"], interval == 1,
            parts.count == 1, freq == "DAILY" || freq == "WEEKLY"
        {
            return "weekdays"
        }
        let fields = due.flatMap { CompactTime.seconds($0.date) == nil ? nil : $0 }.map { CompactTime.gregorian(calendar.timeZone).dateComponents([.weekday, .day, .month], from: $0.date) }
        let weekdays = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"]
        if let byDay = parts.removeValue(forKey: "BYDAY") {
            guard freq == "WEEKLY", let weekday = fields?.weekday, (1...7).contains(weekday), byDay == weekdays[weekday - 1] else {
                return nil
            }
        }
        if let byMonthDay = parts.removeValue(forKey: "BYMONTHDAY") {
            guard freq == "MONTHLY" || freq == "YEARLY", let day = fields?.day, Int(byMonthDay) == day else { return nil }
        }
        if let byMonth = parts.removeValue(forKey: "BYMONTH") {
            guard freq == "YEARLY", let month = fields?.month, Int(byMonth) == month else { return nil }
        }
        guard parts.isEmpty else { return nil }
        switch freq {
        case "DAILY": return interval == 1 ? "daily" : "\(interval)d"
        case "WEEKLY": return interval == 1 ? "weekly" : "\(interval)w"
        case "MONTHLY": return interval == 1 ? "monthly" : interval == 3 ? "quarterly" : "\(interval)mo"
        case "YEARLY": return interval == 1 ? "yearly" : "\(interval)y"
        default: return nil
        }
    }
}
