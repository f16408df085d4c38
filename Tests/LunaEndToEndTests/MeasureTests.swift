import Foundation
import LunaLive
import LunaTestSupport
import Testing

/// Figures for the README and closing notes, not assertions: run by scripts/measure-inspector
/// (LUNA_MEASURE=1). Save → page and tap → page are timed in a real browser.
@Suite(
    .serialized,
    .enabled(if: WebDriver.available && ProcessInfo.processInfo.environment["LUNA_MEASURE"] == "1"))
struct MeasureTests {
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
    }

    static func report(_ line: String) {
        print("measure: " + line)
    }

    /// Writes figures into the benchmarks' JSON (`LUNA_MEASURE_JSON`, set by
    /// scripts/measure-inspector to Benchmarks/results/latest.json), keeping its other keys.
    static func record(_ figures: [String: Double]) throws {
        guard let path = ProcessInfo.processInfo.environment["LUNA_MEASURE_JSON"] else { return }
        var object: [String: Any] = [:]
        if let data = FileManager.default.contents(atPath: path),
            let existing = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        {
            object = existing
        }
        for (key, value) in figures { object[key] = (value * 100).rounded() / 100 }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// A stack of `count` endpoints, the first titled `title`.
    static func bigScript(_ count: Int, title: String) -> String {
        var lines = ["return stack {", "  endpoint { \"r0\", title = \"\(title)\" },"]
        for index in 1..<count {
            lines.append("  endpoint { \"section\(index % 40)/r\(index)/:id\", title = \"R\(index)\" },")
        }
        lines.append("}")
        return lines.joined(separator: "\n")
    }

    /// Epoch milliseconds, as the page's Date.now() counts them.
    static func now() -> Double { Date().timeIntervalSince1970 * 1000 }

    func saveToPage(
        example: String, source: String?, screen: String, titles: (Int) -> String, edit: (String, Int) -> String
    )
        async throws -> [Double]
    {
        let served = try ServedScript(example: example, source: source)
        defer { served.stop() }
        var samples: [Double] = []
        try await WebDriver.withPage(served) { browser in
            try await browser.type("address", screen + "\u{E007}")
            try await browser.wait("the screen", "document.querySelector('[data-testid=\"screen-\(screen)\"]')")
            let original = try String(contentsOfFile: served.script, encoding: .utf8)
            for round in 1...20 {
                let title = titles(round)
                // The page notes when the new title is drawn.
                try await browser.script(
                    """
                    window.lunaSeen = 0;
                    const observer = new MutationObserver(() => {
                      const h = document.querySelector('[data-testid="screen-\(screen)"] h3');
                      if (h && h.textContent === \(String(reflecting: title)) && !window.lunaSeen) { window.lunaSeen = Date.now(); observer.disconnect(); }
                    });
                    observer.observe(document.getElementById('screen'), { childList: true, subtree: true, characterData: true });
                    """)
                // The edited text is made before the clock starts: at 10,000 routes replacing
                // the title in the script's text and writing it took about 19 ms, which the figure counted.
                let edited = edit(original, round)
                let saved = Self.now()
                served.save(edited)
                try await browser.wait("the title", timeout: .seconds(10), "window.lunaSeen > 0")
                let seen = try await browser.script("return window.lunaSeen;") as? Double ?? .nan
                samples.append(seen - saved)
                try await Task.sleep(for: .milliseconds(150))
            }
        }
        return samples
    }

    @Test func saveToPageUpdated() async throws {
        let books = try await saveToPage(
            example: "books.lua", source: nil, screen: "today", titles: { "Today \($0)" },
            edit: {
                $0.replacingOccurrences(
                    of: #"endpoint { "today", title = "Today""#, with: #"endpoint { "today", title = "Today \#($1)""#)
            })
        Self.report(
            String(
                format:
                    "save → page, books.lua: median %.1f ms (min %.1f, max %.1f; 20 saves)",
                Self.median(books), books.min() ?? 0, books.max() ?? 0))
        var figures = ["save_to_page_books_ms": Self.median(books)]
        for (count, key) in [(1000, "1k"), (10_000, "10k")] {
            let big = try await saveToPage(
                example: "big.lua", source: Self.bigScript(count, title: "First"), screen: "r0",
                titles: { "First \($0)" },
                edit: { text, round in
                    text.replacingOccurrences(of: #"title = "First""#, with: #"title = "First \#(round)""#)
                })
            Self.report(
                String(
                    format: "save → page, %d routes: median %.1f ms (min %.1f, max %.1f; 20 saves)", count,
                    Self.median(big), big.min() ?? 0, big.max() ?? 0))
            figures["save_to_page_\(key)_ms"] = Self.median(big)
        }
        try Self.record(figures)
    }

    /// Save → the reload's event at a page's socket, without a browser: the server's part of
    /// save → page (the watcher, the reload, the snapshot and its encoding, the socket), so the
    /// browser's part is the difference.
    @Test func saveToSocketMessage() throws {
        for (count, key) in [(1000, "1k"), (10_000, "10k")] {
            let served = try ServedScript(example: "big.lua", source: Self.bigScript(count, title: "First"))
            defer { served.stop() }
            let page = try PageClient.connect(port: served.port, token: served.token)
            defer { page.close() }
            _ = try page.next(containing: "snapshot")
            let original = try String(contentsOfFile: served.script, encoding: .utf8)
            var samples: [Double] = []
            for round in 1...20 {
                let edited = original.replacingOccurrences(of: #"title = "First""#, with: #"title = "First \#(round)""#)
                let saved = Self.now()
                served.save(edited)
                _ = try page.next(containing: "\"reloaded\"")
                samples.append(Self.now() - saved)
                Thread.sleep(forTimeInterval: 0.15)
            }
            Self.report(
                String(
                    format: "save → socket message, %d routes: median %.1f ms (min %.1f, max %.1f; 20 saves)", count,
                    Self.median(samples), samples.min() ?? 0, samples.max() ?? 0))
            try Self.record(["save_to_socket_\(key)_ms": Self.median(samples)])
        }
    }

    @Test func tapToPageUpdated() async throws {
        let served = try ServedScript()
        defer { served.stop() }
        try await WebDriver.withPage(served) { browser in
            try await browser.type("address", "books/42\u{E007}")
            try await browser.wait("the book", "document.querySelector('[data-testid=\"screen-books/:id\"]')")
            var samples: [Double] = []
            for round in 0..<20 {
                let (tab, screen) =
                    round % 2 == 0 ? ("stack:today", "screen-today") : ("stack:books", "screen-books/:id")
                let elapsed =
                    try await browser.script(
                        """
                        return await new Promise((resolve) => {
                          const start = performance.now();
                          const observer = new MutationObserver(() => {
                            if (document.querySelector('[data-testid="\(screen)"]')) { observer.disconnect(); resolve(performance.now() - start); }
                          });
                          observer.observe(document.getElementById('screen'), { childList: true, subtree: true });
                          document.querySelector('[data-testid="tab-\(tab)"]').click();
                        });
                        """) as? Double
                samples.append(elapsed ?? .nan)
            }
            Self.report(
                String(
                    format: "tap → page updated (loopback): median %.1f ms (min %.1f, max %.1f; 20 tab taps)",
                    Self.median(samples), samples.min() ?? 0, samples.max() ?? 0))
        }
    }

    @Test func memoryWithFiftyPages() throws {
        func residentBytes() -> Int {
            let fields = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8))?.split(separator: " ") ?? []
            return (fields.count > 1 ? Int(fields[1]) ?? 0 : 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
        }
        let served = try ServedScript()
        defer { served.stop() }
        let before = residentBytes()
        let pages = try (0..<50).map { _ in try PageClient.connect(port: served.port, token: served.token) }
        for page in pages { _ = try page.next(containing: #""type":"snapshot""#) }
        for index in 0..<200 { try served.session.dispatch(index % 2 == 0 ? "books/\(index)" : "today") }
        for page in pages { _ = try page.next(containing: #""index":199"#) }
        let after = residentBytes()
        Self.report(
            "memory: 50 pages connected and 200 dispatches pushed to each: +\((after - before) / 1024) KiB resident (test process, server and clients together; \(after / 1024 / 1024) MiB in all)"
        )
        pages.forEach { $0.close() }
    }

    static func residentMiB() -> Double {
        let fields = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8))?.split(separator: " ") ?? []
        return Double((fields.count > 1 ? Int(fields[1]) ?? 0 : 0) * Int(sysconf(Int32(_SC_PAGESIZE)))) / 1_048_576
    }

    /// A raw WebSocket page that upgrades and then never reads.
    static func silentPage(port: Int, token: String) throws -> RawConnection {
        let connection = try RawConnection(port: port)
        var size: Int32 = 4096
        setsockopt(connection.fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        connection.send(
            "GET /socket?token=\(token) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\n"
                + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        return connection
    }

    /// 100 pages that never read, 3,000 dispatches, then the pages close: the process's
    /// resident memory at each step (server and clients together), and a flood of 300,000
    /// snapshot requests from a page that never reads.
    @Test func memoryWithPagesThatNeverRead() throws {
        let served = try ServedScript()
        defer { served.stop() }
        let start = Self.residentMiB()
        let pages = try (0..<100).map { _ in try Self.silentPage(port: served.port, token: served.token) }
        for index in 0..<3_000 { try served.session.dispatch(index % 2 == 0 ? "books/\(index)" : "today") }
        let loaded = Self.residentMiB()
        withExtendedLifetime(pages) {}
        let clock = ContinuousClock()
        let fresh = try PageClient.connect(port: served.port, token: served.token)
        let connectStart = clock.now
        _ = try fresh.next(containing: #""type":"snapshot""#)
        let connectTime = clock.now - connectStart
        fresh.close()
        Self.report(
            String(
                format:
                    "memory: 100 pages that never read + 3,000 dispatches: %.0f → %.0f MiB resident; a new page's snapshot in %@",
                start, loaded, "\(connectTime)"))
        _ = pages.count
        // The flood: one page sends 300,000 snapshot requests and never reads.
        let flooder = try Self.silentPage(port: served.port, token: served.token)
        usleep(100_000)
        let frame: [UInt8] = {
            let payload = Array(#"{"op":"snapshot","id":1}"#.utf8)
            return [0x81, 0x80 | UInt8(payload.count), 0, 0, 0, 0] + payload
        }()
        let floodStart = clock.now
        var sent = 0
        var burst: [UInt8] = []
        for _ in 0..<1000 { burst += frame }
        while sent < 300_000, clock.now - floodStart < .seconds(20) {
            let count = burst.withUnsafeBytes {
                send(flooder.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if count <= 0 { break }
            sent += count / frame.count
        }
        let flooded = Self.residentMiB()
        let after = try PageClient.connect(port: served.port, token: served.token)
        let snapshotStart = clock.now
        _ = try after.next(containing: #""type":"snapshot""#)
        let snapshotTime = clock.now - snapshotStart
        after.close()
        Self.report(
            "flood: a page sent \(sent) snapshot requests without reading: \(String(format: "%.0f", flooded)) MiB resident; a new page's snapshot in \(snapshotTime)"
        )
        withExtendedLifetime(flooder) {}
    }
}
