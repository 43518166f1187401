import Foundation

/// Which tier of the suite is running. `scripts/test.sh --quick` sets DRIFTFIX_TEST_TIER=quick: the unit-level
/// suites without the few tests that stream hours of audio or wait on real timeouts, for the loop of work. The full
/// `scripts/test.sh` (and CI) runs every test. A test of the full tier says so in its traits:
/// `.enabled(if: SuiteTier.full, "full tier: ...")`, so a quick run lists it as skipped, never silently absent.
public enum SuiteTier {
    public static let full = ProcessInfo.processInfo.environment["DRIFTFIX_TEST_TIER"] != "quick"
}
