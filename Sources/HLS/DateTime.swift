import FoundationEssentials

/// ISO 8601 date-time of EXT-X-PROGRAM-DATE-TIME (RFC 8216 s4.3.2.6), parsed by hand so that no
/// formatter object is shared between threads and nothing can trap.
///
/// Accepts `YYYY-MM-DDThh:mm:ss[.fraction][Z|+hh:mm|+hhmm|+hh]`; a missing zone is read as UTC
/// and a space or lower-case `t` may stand for the `T`.
public enum DateTime {
    public static func parse(_ text: String) -> Date? {
        let s = Array(text.unicodeScalars)
        var i = 0
        func number(_ count: Int) -> Int? {
            guard i + count <= s.count else { return nil }
            var n = 0
            for k in i..<(i + count) {
                guard NumberParsing.isDigit(s[k]) else { return nil }
                n = n * 10 + Int(s[k].value - 48)
            }
            i += count
            return n
        }
        func expect(_ c: Unicode.Scalar) -> Bool {
            guard i < s.count, s[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
              i < s.count, s[i] == "T" || s[i] == "t" || s[i] == " " else { return nil }
        i += 1
        guard let hour = number(2), expect(":"), let minute = number(2), expect(":"), let second = number(2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        var fraction = 0.0
        if expect(".") || expect(",") {
            var scale = 0.1
            var digits = 0
            while i < s.count, NumberParsing.isDigit(s[i]) {
                fraction += Double(s[i].value - 48) * scale
                scale /= 10
                digits += 1
                i += 1
            }
            guard digits > 0 else { return nil }
        }
        var offsetSeconds = 0
        if i < s.count {
            if s[i] == "Z" || s[i] == "z" {
                i += 1
            } else if s[i] == "+" || s[i] == "-" {
                let sign = s[i] == "-" ? -1 : 1
                i += 1
                guard let oh = number(2), oh < 24 else { return nil }
                var om = 0
                if i < s.count {
                    _ = expect(":")
                    guard let m = number(2), m < 60 else { return nil }
                    om = m
                }
                offsetSeconds = sign * (oh * 3600 + om * 60)
            } else {
                return nil
            }
        }
        guard i == s.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
