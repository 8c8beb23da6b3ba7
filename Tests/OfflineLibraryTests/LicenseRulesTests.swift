import Foundation
import OfflineLibrary
import XCTest

final class LicenseRulesTests: XCTestCase {
    /// 2026-12-01T10:00:00Z
    private let expiry = Date(timeIntervalSince1970: 1_796_119_200)

    private func verdict(_ license: License, plays: Int = 0, playTime: Double = 0, now: Date,
                         latestSeen: Date? = nil) -> LicenseVerdict {
        LicenseRules.evaluate(license, usage: LicenseUsage(plays: plays, playTime: playTime), now: now, latestSeen: latestSeen)
    }

    func testNoLimitsAlwaysAllows() {
        for now in [Date(timeIntervalSince1970: 0), expiry, .distantFuture] {
            XCTAssertEqual(verdict(.unlimited, plays: 1_000_000, playTime: 1e9, now: now, latestSeen: .distantFuture), .allowed)
        }
        XCTAssertFalse(LicenseVerdict.allowed.expired)
        XCTAssertNil(LicenseVerdict.allowed.message)
    }

    func testDateLimit() {
        let license = License(expires: expiry)
        XCTAssertEqual(verdict(license, now: expiry - 1), .allowed)
        XCTAssertEqual(verdict(license, now: expiry - 1, latestSeen: expiry - 100), .allowed)
        for now in [expiry, expiry + 1, expiry + 86_400 * 365] {
            let result = verdict(license, now: now)
            XCTAssertTrue(result.expired)
            XCTAssertEqual(result.reason, .date)
            XCTAssertEqual(result.message, "the licence expired on 2026-12-01T10:00:00Z")
        }
    }

    func testPlaysLimitCountsForANewPlay() {
        let license = License(maxPlays: 3)
        for plays in 0 ..< 3 { XCTAssertEqual(verdict(license, plays: plays, now: expiry), .allowed, "\(plays) plays") }
        for plays in [3, 4, 100] {
            XCTAssertEqual(verdict(license, plays: plays, now: expiry),
                           LicenseVerdict(reason: .plays, message: "all 3 plays are used"))
        }
        XCTAssertEqual(verdict(License(maxPlays: 1), plays: 1, now: expiry).message, "the 1 play is used")
        XCTAssertEqual(verdict(License(maxPlays: 0), plays: 0, now: expiry),
                       LicenseVerdict(reason: .plays, message: "the licence allows no plays"))
    }

    func testPlayTimeLimit() {
        let license = License(maxPlayTime: 600)
        XCTAssertEqual(verdict(license, playTime: 0, now: expiry), .allowed)
        XCTAssertEqual(verdict(license, playTime: 599.9, now: expiry), .allowed)
        for playTime in [600, 600.5, 10_000] {
            XCTAssertEqual(verdict(license, playTime: playTime, now: expiry),
                           LicenseVerdict(reason: .playTime, message: "the 600 s of play time are used"))
        }
        XCTAssertEqual(verdict(License(maxPlayTime: 90.5), playTime: 91, now: expiry).message,
                       "the 90.5 s of play time are used")
        XCTAssertEqual(verdict(License(maxPlayTime: 0), now: expiry).reason, .playTime)
    }

    func testTheFirstLimitReachedInOrderDatePlaysPlayTimeIsTheReason() {
        let all = License(expires: expiry, maxPlays: 2, maxPlayTime: 100)
        XCTAssertEqual(verdict(all, plays: 2, playTime: 100, now: expiry).reason, .date)
        XCTAssertEqual(verdict(all, plays: 2, playTime: 100, now: expiry - 10).reason, .plays)
        XCTAssertEqual(verdict(all, plays: 1, playTime: 100, now: expiry - 10).reason, .playTime)
        XCTAssertEqual(verdict(all, plays: 1, playTime: 99, now: expiry - 10), .allowed)
    }

    func testClockBehindTheLatestTimeSeenCountsAsExpired() {
        let license = License(expires: expiry)
        let latest = expiry - 86_400  // a day before the expiry
        // Set back a week: the rental would look valid for another week.
        let setBack = verdict(license, now: latest - 7 * 86_400, latestSeen: latest)
        XCTAssertEqual(setBack.reason, .date)
        XCTAssertEqual(setBack.message, "the system clock (2026-11-23T10:00:00Z) is behind the latest time seen "
                       + "(2026-11-30T10:00:00Z), so the licence's date (2026-12-01T10:00:00Z) cannot be checked")
        // Exactly at the tolerance, and within it: allowed.
        XCTAssertEqual(verdict(license, now: latest - LicenseRules.clockTolerance, latestSeen: latest), .allowed)
        XCTAssertEqual(verdict(license, now: latest - 60, latestSeen: latest), .allowed)
        XCTAssertEqual(verdict(license, now: latest - LicenseRules.clockTolerance - 1, latestSeen: latest).reason, .date)
        // Ahead of the latest seen is the normal case.
        XCTAssertEqual(verdict(license, now: latest + 3600, latestSeen: latest), .allowed)
        XCTAssertEqual(LicenseRules.clockTolerance, 300)
    }

    func testASmallStepBackGainsNothingAtTheExpiry() {
        // The clock stepped back 2 minutes (within the tolerance) just after the expiry: the
        // latest time seen is past it, so the licence is still expired.
        let result = verdict(License(expires: expiry), now: expiry - 60, latestSeen: expiry + 60)
        XCTAssertEqual(result, LicenseVerdict(reason: .date, message: "the licence expired on 2026-12-01T10:00:00Z"))
    }

    func testTheClockRuleLeavesLicencesWithoutADateAlone() {
        let latest = expiry
        let playsOnly = License(maxPlays: 5, maxPlayTime: 1000)
        XCTAssertEqual(verdict(playsOnly, plays: 1, playTime: 10, now: latest - 30 * 86_400, latestSeen: latest), .allowed)
        XCTAssertEqual(verdict(playsOnly, plays: 5, now: latest - 30 * 86_400, latestSeen: latest).reason, .plays)
    }

    func testReasonsAreTheAPIStrings() {
        XCTAssertEqual(LicenseLimit.allCases.map(\.rawValue), ["date", "plays", "playTime"])
    }
}
