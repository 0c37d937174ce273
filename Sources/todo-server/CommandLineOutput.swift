import CommandLineSupport

/// Prints a line for people, made inert (`printInert`). It shadows the standard library's `print` inside this
/// executable, so account names and the cloud's reasons never act on the terminal. Our own text uses `printTrusted`.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    printInert(items.map { "\($0)" }.joined(separator: separator), terminator: terminator)
}
