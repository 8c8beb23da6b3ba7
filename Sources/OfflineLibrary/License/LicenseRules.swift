import FoundationEssentials
import TextSupport

/// Decides whether a licence allows a new play. Pure: the caller passes the time and the
/// latest time the library has recorded, so every rule is testable without a clock.
public enum LicenseRules {
    /// How far the system clock may be behind the latest time seen before a date-limited
    /// licence counts as expired. 300 s absorbs the ordinary backward steps of a clock (an
    /// NTP correction at boot, an RTC that drifted a minute or two) without refusing a film,
    /// and is far shorter than any licence period worth enforcing: setting the clock back a
    /// day to watch a rental once more does not work.
    public static let clockTolerance: Double = 300

    /// The verdict for a NEW play at `now`. Limits are checked in the order date, plays, play
    /// time; the first that is reached is the reason.
    ///
    /// - The clock rule: when the licence has an expiry date and `now` is more than
    ///   `clockTolerance` behind `latestSeen`, the date cannot be trusted, so the item counts
    ///   as expired with reason `date`. A licence without a date is not affected: a clock set
    ///   back gains nothing against play limits.
    /// - `date`: expired from the `expires` instant on (judged by the later of `now` and
    ///   `latestSeen`).
    /// - `plays`: expired once `plays >= maxPlays` (the licence allows no further play to
    ///   begin; one already playing is not stopped by this verdict).
    /// - `playTime`: expired once `playTime >= maxPlayTime`.
    public static func evaluate(_ license: License, usage: LicenseUsage, now: Date, latestSeen: Date?) -> LicenseVerdict {
        if let expires = license.expires {
            if let latestSeen, now.timeIntervalSince(latestSeen) < -clockTolerance {
                return LicenseVerdict(reason: .date, message: "the system clock (\(timestamp(now))) is behind the latest "
                    + "time seen (\(timestamp(latestSeen))), so the licence's date (\(timestamp(expires))) cannot be checked")
            }
            // Within the tolerance the clock may have stepped back a little: the latest time
            // seen is the better estimate of the present, so a small step gains nothing either.
            if max(now, latestSeen ?? now) >= expires {
                return LicenseVerdict(reason: .date, message: "the licence expired on \(timestamp(expires))")
            }
        }
        if let maxPlays = license.maxPlays, usage.plays >= maxPlays {
            return LicenseVerdict(reason: .plays, message: playsMessage(maxPlays))
        }
        if let maxPlayTime = license.maxPlayTime, usage.playTime >= maxPlayTime {
            return LicenseVerdict(reason: .playTime, message: "the \(maxPlayTime.decimalText) s of play time are used")
        }
        return .allowed
    }

    private static func playsMessage(_ maxPlays: Int) -> String {
        switch maxPlays {
        case ...0: return "the licence allows no plays"
        case 1: return "the 1 play is used"
        default: return "all \(maxPlays) plays are used"
        }
    }

    /// RFC 3339 in UTC, whole seconds: "2026-12-01T10:00:00Z".
    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle())
    }
}
