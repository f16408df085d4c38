import LuaCallBench

/// Medians of repeated timings, after a warm-up round.
struct Harness {
    var rounds: Int

    /// Nanoseconds per operation: `body` runs `operations` operations per call.
    func nanoseconds(operations: Int, _ body: () -> Void) -> Double {
        body()  // warm-up
        var samples: [Double] = []
        for _ in 0..<rounds { samples.append(Self.elapsed(body) / Double(operations)) }
        return Self.median(samples)
    }

    /// Nanoseconds one call of `body` takes.
    static func elapsed(_ body: () throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        try body()
        return nanoseconds(clock.now - start)
    }

    static func nanoseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }
}

/// Bytes the C heap holds (glibc mallinfo2: in-use chunks plus mmapped blocks).
func heapInUse() -> Int { Int(bench_heap_in_use()) }

/// Keeps a value alive and observable, so the optimizer cannot drop the work.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
