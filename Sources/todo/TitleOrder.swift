import CoreFoundation
import Foundation

/// Titles in `localizedCaseInsensitiveCompare`'s order, for sorting many: that call makes a CFLocale from the current
/// locale's identifier and bridges both strings anew for every comparison, which was half of `todo list`'s time over
/// 9,000 todos. Here the locale is made once and each title is made a CoreFoundation string of its own UTF-16 once;
/// each comparison is the same CoreFoundation call with the same options (case-insensitive, non-literal) that it makes.
/// A Swift string bridged as an NSString hands CoreFoundation its characters through calls back into Swift, one
/// at a time: over 900 titles the comparisons were 45 % of `todo list`'s instructions, and take a third of the time
/// on strings that hold their UTF-16 (`TitleOrderTests` checks the answers are `localizedCaseInsensitiveCompare`'s).
///
/// Two titles of printable ASCII are compared without CoreFoundation where the locale orders those characters as
/// ICU's root collation does (`rootOrderForASCII`; Foundation on Linux always answers `en_001`). CoreFoundation folds
/// ASCII case itself and hands ICU the rest of both titles from their first difference; there each printable ASCII
/// character has a primary weight of its own, one for both cases of a letter, so ICU's answer is the order of the
/// two characters that differ (`printableASCIIOrder`). Opening ICU's collator for that answer was 0.7 M of `todo list
/// +home`'s 10.7 M instructions over 1,000 todos, and its code and data 1.2 MiB of the command's peak.
enum TitleOrder {
    /// Titles made ready to be compared by position; each made a CoreFoundation string only if CoreFoundation
    /// compares it, the locale only once it does.
    final class Prepared {
        private let titles: [String]
        private var strings: [CFString?]
        private var locale: CFLocale?
        /// Whether each title is printable ASCII, found at its first comparison (a sort compares each title many times).
        private var printable: [Bool?]

        init(_ titles: [String]) {
            self.titles = titles
            strings = Array(repeating: nil, count: titles.count)
            printable = Array(repeating: nil, count: titles.count)
        }

        /// How the title at `a` compares with the one at `b`.
        func compare(_ a: Int, _ b: Int) -> ComparisonResult {
            if TitleOrder.rootOrderForASCII, isPrintable(a), isPrintable(b) {
                var (x, y) = (titles[a], titles[b])
                return x.withUTF8 { first in y.withUTF8 { second in TitleOrder.rankOrder(first, second) } }
            }
            let (first, second) = (string(a), string(b))
            let locale = self.locale ?? TitleOrder.currentLocale()
            self.locale = locale
            // kCFCompareCaseInsensitive (1) and kCFCompareNonliteral (16), as NSString's compare adds with a locale.
            let flags = CFStringCompareFlags(rawValue: 1 | 16)
            let result = CFStringCompareWithOptionsAndLocale(first, second, CFRangeMake(0, CFStringGetLength(first)), flags, locale)
            return result == .compareLessThan ? .orderedAscending : result == .compareGreaterThan ? .orderedDescending : .orderedSame
        }

        /// Whether the title at `index` is printable ASCII.
        private func isPrintable(_ index: Int) -> Bool {
            if let known = printable[index] { return known }
            var title = titles[index]
            let answer = title.withUTF8(TitleOrder.isPrintableASCII)
            printable[index] = answer
            return answer
        }

        /// The title at `index` as a CoreFoundation string holding its UTF-16.
        private func string(_ index: Int) -> CFString {
            if let made = strings[index] { return made }
            let made = Array(titles[index].utf16).withUnsafeBufferPointer { CFStringCreateWithCharacters(kCFAllocatorSystemDefault, $0.baseAddress, $0.count)! }
            strings[index] = made
            return made
        }
    }

    /// The current locale as CoreFoundation compares with it.
    static func currentLocale() -> CFLocale {
        CFLocaleCreate(kCFAllocatorSystemDefault, unsafeBitCast(NSString(string: Locale.current.identifier), to: CFString.self))
    }

    /// Whether this process's locale orders printable ASCII as the root collation does.
    ///
    /// On Linux, Foundation's current locale is always `en_001` (it has no user preferences to read there;
    /// `TitleOrderTests` holds it to that): asking for it made a locale through ICU, whose resource data were
    /// 0.4 MB of a `todo list`'s peak.
    #if os(Linux)
    static let rootOrderForASCII = ordersASCIIAsRoot(linuxCurrentLocale)
    #else
    static let rootOrderForASCII = ordersASCIIAsRoot(Locale.current.identifier)
    #endif

    /// The identifier of Foundation's current locale on Linux.
    static let linuxCurrentLocale = "en_001"

    /// Whether the locale `identifier` orders printable ASCII as the root collation does: English, whose collation
    /// is the root's (`TitleOrderTests` checks each of these against CoreFoundation). Others may tailor it.
    static func ordersASCIIAsRoot(_ identifier: String) -> Bool {
        switch identifier {
        case "en_001", "en", "en_US", "en_GB": true
        default: false
        }
    }

    /// The printable ASCII characters (U+0020–U+007E) in the root collation's primary order, a letter for both cases.
    static let rootOrder = #" _-,;:!?.'"()[]{}@*/\&#%`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz"#

    /// Each ASCII byte's place in `rootOrder` from 1 (an upper-case letter that of its lower case), 0 for bytes
    /// outside the printable range.
    static let rootRanks: [UInt8] = {
        var ranks = [UInt8](repeating: 0, count: 128)
        for (place, byte) in rootOrder.utf8.enumerated() { ranks[Int(byte)] = UInt8(place + 1) }
        for upper in UInt8(ascii: "A")...UInt8(ascii: "Z") { ranks[Int(upper)] = ranks[Int(upper + 32)] }
        return ranks
    }()

    /// How `x` compares with `y` in the root collation at `localizedCaseInsensitiveCompare`'s strength when both are
    /// printable ASCII: by the ranks of the first characters that differ, else the shorter first; nil otherwise.
    static func printableASCIIOrder(_ x: String, _ y: String) -> ComparisonResult? {
        var (x, y) = (x, y)
        return x.withUTF8 { first in y.withUTF8 { second in printableASCIIOrder(first, second) } }
    }

    /// `printableASCIIOrder` of two titles' UTF-8.
    static func printableASCIIOrder(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> ComparisonResult? {
        guard isPrintableASCII(x), isPrintableASCII(y) else { return nil }
        return rankOrder(x, y)
    }

    /// Whether every byte of `bytes` is printable ASCII (U+0020–U+007E).
    static func isPrintableASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let ranks = rootRanks
        return bytes.allSatisfy { $0 < 128 && ranks[Int($0)] != 0 }
    }

    /// The root collation's order of two printable-ASCII titles: by the ranks of the first characters that differ,
    /// else the shorter first.
    static func rankOrder(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> ComparisonResult {
        let ranks = rootRanks
        for index in 0..<min(x.count, y.count) {
            let (left, right) = (ranks[Int(x[index])], ranks[Int(y[index])])
            if left != right { return left < right ? .orderedAscending : .orderedDescending }
        }
        return x.count == y.count ? .orderedSame : x.count < y.count ? .orderedAscending : .orderedDescending
    }
}
