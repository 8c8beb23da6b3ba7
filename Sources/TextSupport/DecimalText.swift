/// `Double.formatted()` as it reads in an English locale, without Foundation: the daemon
/// links only FoundationEssentials, whose number formatting is in FoundationInternationalization.
/// At most six decimals, trailing zeros dropped, thousands grouped with ",".
extension Double {
    public var decimalText: String {
        guard isFinite else { return description }
        let fixed = String(printf: "%.6f", self)
        var (whole, fraction) = (Substring(fixed), Substring(""))
        if let dot = fixed.firstIndex(of: ".") {
            whole = fixed[..<dot]
            fraction = fixed[fixed.index(after: dot)...]
        }
        while fraction.hasSuffix("0") { fraction.removeLast() }
        let negative = whole.hasPrefix("-")
        let digits = Array(whole.drop(while: { $0 == "-" }))
        var grouped = ""
        for (i, digit) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return (negative ? "-" : "") + grouped + (fraction.isEmpty ? "" : "." + fraction)
    }
}
