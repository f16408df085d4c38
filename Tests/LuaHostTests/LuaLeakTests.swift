import Testing

@testable import LuaHost

@Suite struct LuaLeakTests {
    /// Every host callback throws, 1,000 times through pcall. Run under
    /// `scripts/sanitize` (LeakSanitizer) this proves that raising through the trampoline
    /// leaks nothing on the Swift side; here it checks Lua's own accounting and that no
    /// Swift object outlives the VM.
    @Test func hostCallbacksThatThrowLeakNothing() throws {
        weak var weakToken: View?
        var vm: LuaVM? = try LuaVM(options: LuaLimitsTests.options(deadline: nil))
        do {
            let token = View()
            weakToken = token
            let vm = vm!
            vm.register("swiftError") { _ in
                _ = token
                throw HostFailure()
            }
            vm.register("argumentError") { args in [.table(try args.table(1))] }
            vm.register("nestedError") { args in try args.vm.call(.function(try args.function(1))) }
            let cls = vm.registerClass(
                LuaClassDefinition(name: "view", index: { _, _ in throw HostFailure() }))
            try vm.rawSet(vm.globals, key: "view", value: vm.wrap(View(), as: cls))
            let loop = """
                local failures = 0
                for i = 1, 1000 do
                  if not pcall(swiftError, string.rep('x', 100)) then failures = failures + 1 end
                  if not pcall(argumentError, i) then failures = failures + 1 end
                  if not pcall(nestedError, function() error({ i }) end) then failures = failures + 1 end
                  if not pcall(function() return view.anything end) then failures = failures + 1 end
                end
                return failures
                """
            vm.collectGarbage()
            let before = vm.memoryInUse
            #expect(try vm.run(loop, chunkName: "@leak.lua") == [4000])
            vm.collectGarbage()
            #expect(vm.memoryInUse <= before + 16 * 1024, "Lua memory grew from \(before) to \(vm.memoryInUse)")
            #expect(vm.stackTop == 0)
        }
        vm = nil
        #expect(weakToken == nil)
    }
}
