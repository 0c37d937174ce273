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
/// Two titles made only of printable ASCII and the common Han ideographs (U+4E00–U+9FFF) are compared without
/// CoreFoundation where the locale orders those characters as ICU's root collation does (`rootOrderForASCII`;
/// Foundation on Linux always answers `en_001`). CoreFoundation folds ASCII case itself and hands ICU the rest of both
/// titles from their first difference; there each printable ASCII character has a primary weight of its own, one for
/// both cases of a letter, below every ideograph, and each of those ideographs one of its own in radical-stroke order
/// (`HanRootOrder`), so ICU's answer is the order of the two characters that differ (`rootRankOrder`). Opening ICU's
/// collator for that answer was 0.7 M of `todo list +home`'s 8.5 M instructions over 1,000 todos, a quarter of them
/// with Chinese titles, and its code, data and locale 3.5 MiB of the command's peak.
enum TitleOrder {
    /// Titles made ready to be compared by position; each made a CoreFoundation string only if CoreFoundation
    /// compares it, the locale only once it does.
    final class Prepared {
        private let titles: [String]
        private var strings: [CFString?]
        private var locale: CFLocale?
        /// What each title is made of, found at its first comparison (a sort compares each title many times).
        private var kinds: [Kind?]

        /// Which comparison a title can take.
        private enum Kind {
            /// Printable ASCII only: compared byte by byte.
            case printableASCII
            /// Printable ASCII and common Han ideographs: compared character by character.
            case rootOrdered
            /// Anything else: compared by CoreFoundation.
            case other
        }

        init(_ titles: [String]) {
            self.titles = titles
            strings = Array(repeating: nil, count: titles.count)
            kinds = Array(repeating: nil, count: titles.count)
        }

        /// How the title at `a` compares with the one at `b`.
        func compare(_ a: Int, _ b: Int) -> ComparisonResult {
            if TitleOrder.rootOrderForASCII {
                let (first, second) = (kind(a), kind(b))
                if first != .other, second != .other {
                    var (x, y) = (titles[a], titles[b])
                    let ascii = first == .printableASCII && second == .printableASCII
                    return x.withUTF8 { x in y.withUTF8 { y in ascii ? TitleOrder.rankOrder(x, y) : TitleOrder.rootRankOrder(x, y) } }
                }
            }
            let (first, second) = (string(a), string(b))
            let locale = self.locale ?? TitleOrder.currentLocale()
            self.locale = locale
            // kCFCompareCaseInsensitive (1) and kCFCompareNonliteral (16), as NSString's compare adds with a locale.
            let flags = CFStringCompareFlags(rawValue: 1 | 16)
            let result = CFStringCompareWithOptionsAndLocale(first, second, CFRangeMake(0, CFStringGetLength(first)), flags, locale)
            return result == .compareLessThan ? .orderedAscending : result == .compareGreaterThan ? .orderedDescending : .orderedSame
        }

        /// What the title at `index` is made of.
        private func kind(_ index: Int) -> Kind {
            if let known = kinds[index] { return known }
            var title = titles[index]
            let answer: Kind = title.withUTF8 { bytes in
                TitleOrder.isPrintableASCII(bytes) ? .printableASCII : TitleOrder.isRootOrdered(bytes) ? .rootOrdered : .other
            }
            kinds[index] = answer
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

    /// Whether this process's locale orders printable ASCII and the common Han ideographs as the root collation does.
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

    /// Whether the locale `identifier` orders printable ASCII and the common Han ideographs as the root collation does:
    /// English, whose collation is the root's (`TitleOrderTests` checks each of these against CoreFoundation). Others
    /// may tailor it (Chinese and Japanese order the ideographs otherwise).
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

    /// Whether `bytes` are printable ASCII and common Han ideographs only, at least one of them an ideograph.
    static func isRootOrdered(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        var ideographs = false
        while index < bytes.count {
            guard let rank = rootRank(bytes, at: &index) else { return false }
            ideographs = ideographs || rank > UInt32(UInt8.max)
        }
        return ideographs
    }

    /// The root collation's order of two titles of printable ASCII and common Han ideographs: by the ranks of the
    /// first characters that differ (every ASCII character below every ideograph), else the shorter first.
    static func rootRankOrder(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> ComparisonResult {
        var (i, j) = (0, 0)
        while i < x.count, j < y.count {
            // Both were checked by `isRootOrdered` or `isPrintableASCII`: every character has a rank (a byte without
            // one would count as rank 0 and the walk still move on).
            let (left, right) = (rootRank(x, at: &i) ?? 0, rootRank(y, at: &j) ?? 0)
            if left != right { return left < right ? .orderedAscending : .orderedDescending }
        }
        return i == x.count && j == y.count ? .orderedSame : i == x.count ? .orderedAscending : .orderedDescending
    }

    /// The rank of the character of UTF-8 `bytes` at `index` (moved past it, or past one byte when it has no rank,
    /// so a walk always ends): a printable ASCII character's place in `rootOrder`, a common Han ideograph's 256 past
    /// its place in `HanRootOrder`; nil for any other character.
    static func rootRank(_ bytes: UnsafeBufferPointer<UInt8>, at index: inout Int) -> UInt32? {
        let lead = bytes[index]
        index += 1
        if lead < 0x80 {
            let rank = rootRanks[Int(lead)]
            return rank == 0 ? nil : UInt32(rank)
        }
        // U+4E00–U+9FFF are the three bytes E4 B8 80 through E9 BF BF.
        guard (0xE4...0xE9).contains(lead), index + 1 < bytes.count else { return nil }
        let (second, third) = (bytes[index], bytes[index + 1])
        guard second & 0xC0 == 0x80, third & 0xC0 == 0x80 else { return nil }
        let scalar = UInt32(lead & 0x0F) << 12 | UInt32(second & 0x3F) << 6 | UInt32(third & 0x3F)
        guard let place = HanRootOrder.place(of: scalar) else { return nil }
        index += 2
        return UInt32(UInt8.max) + 1 + UInt32(place)
    }
}
