import Foundation
import Testing

@testable import RouteCore

/// The package's two locks: `Locked` hands its value to one thread at a time; the
/// `ReentrantGate` lets the thread that holds it in again and keeps every other thread out.
@Suite struct LockTests {
    @Test func theGateLetsItsHolderInAgainAndKeepsOthersOut() async throws {
        let gate = ReentrantGate()
        let nested = gate.enter { gate.enter { gate.enterIfFree { 7 } } }
        #expect(nested == 7, "the holder enters again, waiting or not")
        let entered = Locked(false)
        let release = Locked(false)
        let holder = Thread {
            gate.enter {
                entered.withLock { $0 = true }
                while !release.withLock({ $0 }) { usleep(1_000) }
            }
        }
        holder.start()
        while !entered.withLock({ $0 }) { usleep(1_000) }
        #expect(gate.enterIfFree { 1 } == nil, "another thread holds it: no waiting")
        release.withLock { $0 = true }
        // Once released, this thread gets in (waiting if it must).
        #expect(gate.enter { 2 } == 2)
        #expect(gate.enterIfFree { 3 } == 3)
    }

    @Test func lockedCountsWithoutLosingAnUpdate() async {
        let counter = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { for _ in 0..<10_000 { counter.withLock { $0 += 1 } } } }
        }
        #expect(counter.withLock { $0 } == 80_000)
    }
}
