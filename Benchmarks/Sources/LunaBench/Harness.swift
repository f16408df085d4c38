import LuaCallBench

/// Medians of repeated timings, after a warm-up round.
struct Harness {
    var rounds: Int
    private let clock = ContinuousClock()

    /// Nanoseconds per operation: `body` runs `operations` operations per call.
    func nanoseconds(operations: Int, _ body: () -> Void) -> Double {
        body()  // warm-up
        var samples: [Double] = []
        for _ in 0..<rounds {
            let start = clock.now
            body()
            let elapsed = clock.now - start
            samples.append(Self.nanoseconds(elapsed) / Double(operations))
        }
        return Self.median(samples)
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
