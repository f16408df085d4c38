internal import CLua
internal import CLuaShims

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One Lua 5.4 state, sandboxed and limited, seen from Swift.
///
/// Every call into Lua is protected (lua_pcall with a traceback message handler) and runs
/// under an instruction budget, a wall-clock deadline and a memory cap; a script that
/// breaks any of them gets a ``LuaError`` and the VM stays usable.
///
/// ```swift
/// let vm = try LuaVM()
/// vm.register("twice") { args in [.integer(try args.integer(1) * 2)] }
/// let result = try vm.run("return twice(21)", chunkName: "@demo.lua")  // [.integer(42)]
/// ```
///
/// A VM is not thread-safe: use it from one thread (or actor) at a time.
public final class LuaVM {
    /// How a VM is created.
    public struct Options: Sendable {
        /// The standard libraries scripts get.
        public var sandbox: LuaSandbox = .standard
        /// The memory cap in bytes (default 64 MiB); `0` means none.
        public var memoryLimit: Int = 64 * 1024 * 1024
        /// Limits for loading and running a chunk.
        public var loadLimits: LuaLimits = .load
        /// Limits for each call of a Lua function from Swift.
        public var callLimits: LuaLimits = .call
        /// Where `print` writes (default: standard output).
        public var output: (@Sendable (String) -> Void)?

        public init() {}
    }

    public let options: Options
    /// The main thread.
    let main: OpaquePointer
    /// The thread Lua code currently runs on (a coroutine while a host function called from
    /// it runs), so nested calls and stack operations use the right stack.
    // Unchecked exclusivity (read on every call, never handed out inout): a Lua callback
    // called from Swift costs 6 % more with the checks (`scripts/bench --only calls`, same run,
    // 2026-11-24: 878 → 932 ns).
    @exclusivity(unchecked) var current: OpaquePointer
    @exclusivity(unchecked) public private(set) var isClosed = false
    /// What references hold to reach this VM while it is open.
    let token = LuaStateToken()
    var functionBoxes: [HostFunctionBox] = []
    var classes: [LuaClass] = []

    /// Creates a state with the options' sandbox, limits and memory cap.
    ///
    /// - Throws: ``LuaError`` when the state cannot be created or the libraries fail to open.
    public init(options: Options = Options()) throws {
        guard
            let L = clua_open(
                options.memoryLimit > 0 ? options.memoryLimit : 0, dispatchHostFunction,
                releaseHostObject)
        else {
            throw LuaError(kind: .memory, message: "cannot create a Lua state")
        }
        self.options = options
        self.main = L
        self.current = L
        clua_set_default_limits(
            L, Int64(options.callLimits.instructions), options.callLimits.deadlineNanoseconds)
        let status = clua_open_libraries(L, options.sandbox == .unsafe ? 1 : 0)
        if status != LUA_OK {
            let error = LuaError.pop(status: status, limit: 0, from: L, memoryCap: options.memoryLimit)
            clua_close(L)
            isClosed = true
            throw error
        }
        token.attach(self)
        installPrint()
    }

    /// Room for one batch of ``LuaArguments/forEachField(_:objects:_:)``, allocated once
    /// instead of on every builder call; a read nested in another's body gets its own.
    let fieldBatch = UnsafeMutableBufferPointer<clua_Field>.allocate(capacity: 64)
    var fieldBatchInUse = false

    deinit {
        close()
        fieldBatch.deallocate()
    }

    /// Closes the state: pending finalizers run, host objects are released, references
    /// become released. Safe to call twice.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        token.invalidate()
        clua_close(main)
        functionBoxes.removeAll()
        classes.removeAll()
    }

    /// Closes the state as ``close()`` does — at once for everyone: its references are
    /// released and every operation throws ``LuaError/Kind/closed`` — but frees it on a
    /// background thread: Lua's objects, and the host objects they held (``LuaClass``
    /// objects, released there, so their `deinit`s run there: a class whose objects must be
    /// released on one thread is closed with ``close()``). Freeing a large state is much
    /// of the cost of closing it (a 10k-route script's state: its 10k node objects and their
    /// tables), which a caller waiting for a reload need not wait for. When `reaper` already
    /// has as many states as it lets wait (two, for the shared one), this one is freed on the
    /// caller's thread.
    ///
    /// Safe because nothing can reach the state once it is closed: every operation checks
    /// ``isClosed`` before touching it, and a reference released afterwards (on any thread)
    /// finds its state gone through the token invalidated here, on the caller's thread.
    /// ``LuaStateReaper/waitUntilFreed()`` waits for the states a reaper freed.
    public func closeFreeingInBackground(reaper: LuaStateReaper = .shared) {
        guard !isClosed else { return }
        isClosed = true
        token.invalidate()
        let teardown = LuaStateReaper.Teardown(state: main, functions: functionBoxes, classes: classes)
        functionBoxes.removeAll()
        classes.removeAll()
        reaper.free(teardown)
    }

    /// Bytes the state has allocated.
    public var memoryInUse: Int { isClosed ? 0 : Int(clua_memory_used(main)) }

    /// The most bytes in use since ``resetMemoryPeak()`` (tests of the memory cap).
    public var memoryPeak: Int { isClosed ? 0 : Int(clua_memory_peak(main)) }
    public func resetMemoryPeak() { if !isClosed { clua_reset_memory_peak(main) } }

    /// Instructions between two checks of the limits now: 1,000, fewer while big strings live.
    var hookInterval: Int { isClosed ? 0 : Int(clua_hook_interval(main)) }

    /// Instructions run by the last (or current) outermost load or call, in steps of 1,000.
    public var instructionsUsed: Int { isClosed ? 0 : Int(clua_instructions_used(main)) }

    /// The number of values on the current Lua stack. Every public operation leaves it as it
    /// found it; tests assert that.
    public var stackTop: Int { isClosed ? 0 : Int(clua_gettop(current)) }

    /// Runs full garbage collections until memory stops shrinking (at most 8): one cycle
    /// frees the garbage, later ones let Lua shrink its string table and stacks, which it
    /// halves at most once per cycle (lua_gc, §4.6, [-0, +0, -]).
    public func collectGarbage() {
        guard !isClosed else { return }
        var before = clua_memory_used(main)
        for _ in 0..<8 {
            clua_collect(main)
            let after = clua_memory_used(main)
            if after >= before { break }
            before = after
        }
    }

    // MARK: Loading and running

    /// Compiles a text chunk without running it.
    ///
    /// - Parameters:
    ///   - source: Lua source text. Binary chunks are refused.
    ///   - chunkName: lua_load's chunk name: `@books.lua` makes errors read `books.lua:12: …`.
    /// - Returns: the compiled chunk, a function.
    public func load(_ source: String, chunkName: String) throws -> LuaValue {
        let L = try liveThread()
        let top = lua_gettop(L)
        var source = source
        let status = source.withUTF8 { text in
            text.withMemoryRebound(to: CChar.self) { chars in
                clua_load(L, chars.baseAddress, chars.count, chunkName)
            }
        }
        guard status == LUA_OK else {
            let error = LuaError.pop(
                status: status, limit: 0, from: L, memoryCap: options.memoryLimit)
            clua_settop(L, top)
            throw error
        }
        return pop(L)
    }

    /// The bytecode of a Lua function (with its debug information), for ``load(bytecode:chunkName:)``
    /// in another state of this process. Nil for a C function.
    public func bytecode(of function: LuaValue) throws -> [UInt8]? {
        let L = try liveThread()
        let top = lua_gettop(L)
        defer { clua_settop(L, top) }
        try push(function, on: L)
        var length = 0
        guard let bytes = clua_dump(L, &length) else { return nil }
        defer { free(bytes) }
        return Array(UnsafeRawBufferPointer(start: bytes, count: length))
    }

    /// Loads bytecode that ``bytecode(of:)`` made in this process (never bytecode from
    /// elsewhere: it is not checked, and crafted bytecode can crash the VM).
    public func load(bytecode: [UInt8], chunkName: String) throws -> LuaValue {
        let L = try liveThread()
        let top = lua_gettop(L)
        let status = bytecode.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                clua_load_binary(L, chars.baseAddress, chars.count, chunkName)
            }
        }
        guard status == LUA_OK else {
            let error = LuaError.pop(status: status, limit: 0, from: L, memoryCap: options.memoryLimit)
            clua_settop(L, top)
            throw error
        }
        return pop(L)
    }

    /// Compiles and runs a text chunk under the load limits; returns what it returns.
    public func run(
        _ source: String, chunkName: String, limits: LuaLimits? = nil
    ) throws
        -> [LuaValue]
    {
        let chunk = try load(source, chunkName: chunkName)
        return try call(chunk, [], limits: limits ?? options.loadLimits)
    }

    /// Calls a Lua function (or a value with `__call`) under the call limits.
    ///
    /// Nested calls (a host function calling back into Lua) share the limits of the
    /// outermost call.
    public func call(
        _ function: LuaValue, _ arguments: [LuaValue] = [], limits: LuaLimits? = nil
    )
        throws -> [LuaValue]
    {
        try call(function, argumentCount: arguments.count, limits: limits) { L in
            for argument in arguments { try push(argument, on: L) }
        }
    }

    /// ``call(_:_:limits:)`` with one argument, without an argument array (hooks and guards
    /// get one `ctx`: the array would be an allocation per call).
    public func call(_ function: LuaValue, _ argument: LuaValue, limits: LuaLimits? = nil) throws -> [LuaValue] {
        try call(function, argument, nil, limits: limits)
    }

    /// ``call(_:_:limits:)`` with two arguments, without an argument array.
    public func call(
        _ function: LuaValue, _ first: LuaValue, _ second: LuaValue, limits: LuaLimits? = nil
    ) throws -> [LuaValue] {
        try call(function, first, .some(second), limits: limits)
    }

    /// One or two arguments, pushed straight from the caller's values (no closure holding
    /// copies of them).
    private func call(
        _ function: LuaValue, _ first: LuaValue, _ second: LuaValue?, limits: LuaLimits?
    ) throws -> [LuaValue] {
        let count = second == nil ? 1 : 2
        let (L, top) = try beginCall(function, first, second, argumentCount: count)
        return try finishCall(L, top: top, argumentCount: count, limits: limits)
    }

    /// Pushes `function` and the arguments given (of `argumentCount`, the rest pushed by the
    /// caller) on the thread a call runs on; on failure the stack is as it was.
    @inline(__always)
    func beginCall(
        _ function: LuaValue, _ first: LuaValue?, _ second: LuaValue?, argumentCount: Int
    ) throws -> (OpaquePointer, Int32) {
        let L = try prepareCall(argumentCount: argumentCount)
        let top = lua_gettop(L)
        do {
            try push(function, on: L)
            if let first { try push(first, on: L) }
            if let second { try push(second, on: L) }
        } catch {
            clua_settop(L, top)
            throw error
        }
        return (L, top)
    }

    private func call(
        _ function: LuaValue, argumentCount: Int, limits: LuaLimits?,
        pushArguments: (OpaquePointer) throws -> Void
    ) throws -> [LuaValue] {
        let L = try prepareCall(argumentCount: argumentCount)
        let top = lua_gettop(L)
        do {
            try push(function, on: L)
            try pushArguments(L)
        } catch {
            clua_settop(L, top)
            throw error
        }
        return try finishCall(L, top: top, argumentCount: argumentCount, limits: limits)
    }

    /// The thread a call runs on, with room for the function, its arguments and a handler.
    @inline(__always)
    func prepareCall(argumentCount: Int) throws -> OpaquePointer {
        let L = try liveThread()
        guard lua_checkstack(L, Int32(argumentCount + 8)) != 0 else {
            throw LuaError(kind: .nesting, message: "Lua stack overflow (too many arguments)")
        }
        return L
    }

    /// Calls the function pushed above `top` with its arguments and collects its results.
    func finishCall(
        _ L: OpaquePointer, top: Int32, argumentCount: Int, limits: LuaLimits?
    ) throws -> [LuaValue] {
        let limits = limits ?? options.callLimits
        var limit: Int32 = 0
        let status = clua_pcall(
            L, Int32(argumentCount), LUA_MULTRET, Int64(limits.instructions),
            limits.deadlineNanoseconds, &limit)
        guard status == LUA_OK else {
            let error = LuaError.pop(
                status: status, limit: limit, from: L, memoryCap: options.memoryLimit)
            clua_settop(L, top)
            throw error
        }
        let count = Int(lua_gettop(L) - top)
        guard count > 0 else { return [] }
        var results: [LuaValue] = []
        results.reserveCapacity(count)
        for index in 0..<count { results.append(value(at: top + 1 + Int32(index), on: L)) }
        clua_settop(L, top)
        return results
    }

    // MARK: Internals

    /// The source name of the last caller location, with its bytes: a builder called 10,000
    /// times from one file makes its name once.
    private var lastSource: (bytes: [UInt8], name: String) = ([], "")

    /// `bytes` (a `short_src`) as a string, reusing the last one when they are the same.
    func sourceName(_ slice: Slice<UnsafeRawBufferPointer>) -> String {
        let bytes = UnsafeRawBufferPointer(rebasing: slice)
        let same =
            bytes.count == lastSource.bytes.count
            && lastSource.bytes.withUnsafeBytes { old in
                guard let a = old.baseAddress, let b = bytes.baseAddress else { return true }  // both empty
                return memcmp(a, b, bytes.count) == 0
            }
        if same { return lastSource.name }
        lastSource = (Array(bytes), String(decoding: bytes, as: UTF8.self))
        return lastSource.name
    }

    /// The thread to operate on, or `closed`.
    func liveThread() throws -> OpaquePointer {
        guard !isClosed else { throw LuaError.closedVM }
        return current
    }

    func unreference(_ ref: Int32) {
        guard !isClosed else { return }
        luaL_unref(current, clua_registryindex(), ref)  // §5.1 luaL_unref [-0, +0, -]
    }

    /// Replaces the global `print` with one that writes through ``Options/output``.
    private func installPrint() {
        let output = options.output
        register("print") { args in
            var parts: [String] = []
            for index in 1...max(args.count, 1) where index <= args.count {
                parts.append(try args.vm.toString(args[index]))
            }
            let line = parts.joined(separator: "\t")
            if let output { output(line) } else { print(line) }
            return []
        }
    }
}
