import FoundationEssentials
import Storage

/// A library item's licence: the limits on playing the local copy. nil is "no limit"; a
/// licence with none is unlimited. The books' record of it, used as it is.
public typealias License = LibraryItemRecord.LicenseTerms

extension LibraryItemRecord.LicenseTerms {
    public static let unlimited = License()
}

/// What has been used of a licence.
public struct LicenseUsage: Sendable, Equatable {
    /// Plays begun.
    public var plays: Int
    /// Seconds played.
    public var playTime: Double

    public init(plays: Int = 0, playTime: Double = 0) {
        self.plays = plays
        self.playTime = playTime
    }
}

/// The licence limit that ends playback; the raw values are the API's `reason`.
public enum LicenseLimit: String, Sendable, Equatable, CaseIterable {
    case date
    case plays
    case playTime
}

/// Whether a licence allows a new play, and if not, which limit says no and why in words.
public struct LicenseVerdict: Sendable, Equatable {
    public var expired: Bool { reason != nil }
    /// nil while the licence allows a new play.
    public var reason: LicenseLimit?
    /// A sentence naming the limit (for `403 license_expired`); nil while allowed.
    public var message: String?

    public init(reason: LicenseLimit?, message: String?) {
        self.reason = reason
        self.message = message
    }

    public static let allowed = LicenseVerdict(reason: nil, message: nil)
}
