import Dispatch
import Foundation
import Testing

@testable import LuaHost

/// A state closed with `closeFreeingInBackground` is closed at once for its users and freed
/// later on the reaper's queue, a bounded number at a time.
@Suite struct LuaStateReaperTests {
    /// Records the threads its objects were released on.
    final class Releases: @unchecked Sendable {
        private let lock = NSLock()
        private var threads: [pthread_t] = []
        var count: Int { lock.withLock { threads.count } }
        func released() { lock.withLock { threads.append(pthread_self()) } }
        func allOn(_ thread: pthread_t) -> Bool {
            lock.withLock { threads.allSatisfy { pthread_equal($0, thread) != 0 } }
        }
        func noneOn(_ thread: pthread_t) -> Bool {
            lock.withLock { threads.allSatisfy { pthread_equal($0, thread) == 0 } }
        }
    }

    final class Object {
        let releases: Releases
        let blocking: DispatchSemaphore?
        let started: DispatchSemaphore?
        init(_ releases: Releases, blocking: DispatchSemaphore? = nil, started: DispatchSemaphore? = nil) {
            self.releases = releases
            self.blocking = blocking
            self.started = started
        }
        deinit {
            started?.signal()
            // Bounded, so that a reaper freeing on the closing thread fails the test instead of
            // hanging it.
            _ = blocking?.wait(timeout: .now() + .seconds(5))
            releases.released()
        }
    }

    /// A VM holding `count` host objects in globals, and a table referenced from Swift.
    func vm(
        holding count: Int, _ releases: Releases, blocking: DispatchSemaphore? = nil, started: DispatchSemaphore? = nil
    )
        throws -> (LuaVM, LuaValue)
    {
        let vm = try LuaVM()
        let cls = vm.registerClass(LuaClassDefinition(name: "object"))
        for index in 0..<count {
            let object = Object(releases, blocking: index == 0 ? blocking : nil, started: index == 0 ? started : nil)
            try vm.rawSet(vm.globals, key: .string("o\(index)"), value: vm.wrap(object, as: cls))
        }
        _ = try vm.run("nodes = {} for i = 1, 1000 do nodes[i] = { title = 'n' .. i } end", chunkName: "=fill")
        return (vm, vm.newTable())
    }

    @Test func aStateIsClosedAtOnceAndFreedOnTheReapersThread() throws {
        let reaper = LuaStateReaper()
        let releases = Releases()
        let (vm, table) = try vm(holding: 50, releases)
        vm.closeFreeingInBackground(reaper: reaper)
        #expect(vm.isClosed)
        #expect(vm.memoryInUse == 0)
        #expect(throws: LuaError.closedVM) { try vm.run("return 1", chunkName: "=c") }
        #expect(throws: LuaError.closedVM) { try vm.rawGet(table, key: "x") }
        #expect(table.reference?.isReleased == true)
        table.reference?.release()  // harmless: the state is gone for its references
        vm.close()  // and closing again does nothing
        reaper.waitUntilFreed()
        #expect(releases.count == 50, "every host object was released when the state was freed")
        #expect(releases.noneOn(pthread_self()))
    }

    /// While the reaper frees one state, one more waits; a third is freed by the closing
    /// thread, before `closeFreeingInBackground` returns.
    @Test func pastItsLimitAStateIsFreedOnTheClosingThread() throws {
        let reaper = LuaStateReaper(limit: 2)
        let (first, second, third) = (Releases(), Releases(), Releases())
        let blocking = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let (vm1, _) = try vm(holding: 3, first, blocking: blocking, started: started)
        let (vm2, _) = try vm(holding: 3, second)
        let (vm3, _) = try vm(holding: 3, third)
        vm1.closeFreeingInBackground(reaper: reaper)
        // The reaper is inside vm1's teardown, held there.
        #expect(started.wait(timeout: .now() + .seconds(5)) == .success)
        vm2.closeFreeingInBackground(reaper: reaper)
        vm3.closeFreeingInBackground(reaper: reaper)
        #expect(third.count == 3, "freed before closeFreeingInBackground returned")
        #expect(third.allOn(pthread_self()))
        #expect(second.count == 0, "waiting behind the first")
        blocking.signal()
        reaper.waitUntilFreed()
        #expect(first.count == 3)
        #expect(second.count == 3)
        #expect(first.noneOn(pthread_self()) && second.noneOn(pthread_self()))
    }
}
