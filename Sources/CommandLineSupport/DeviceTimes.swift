import Foundation

/// Times of the device list in words.
public enum DeviceTimes {
    /// "just now", "5 min ago", "3 h ago", "12 days ago".
    public static func ago(_ millis: Int64, now: Date) -> String {
        let seconds = max(0, now.timeIntervalSince1970 - Double(millis) / 1000)
        switch seconds {
        case ..<60: return "just now"
        case ..<3600: return "\(Int(seconds / 60)) min ago"
        case ..<86400: return "\(Int(seconds / 3600)) h ago"
        default: return "\(Int(seconds / 86400)) days ago"
        }
    }

    /// The UTC day, `2026-11-23`.
    public static func day(_ millis: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter.string(from: Date(timeIntervalSince1970: Double(millis) / 1000))
    }
}
