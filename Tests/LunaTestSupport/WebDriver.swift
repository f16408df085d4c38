import Foundation
import LunaInspector
import NIOHTTP1

/// A W3C WebDriver client for Debian's chromium through chromedriver: enough to open a page,
/// find, click and type, run a script, and take a screenshot.
package final class WebDriver: @unchecked Sendable {
    package static let driverPath = "/usr/bin/chromedriver"
    package static let browserPath = "/usr/bin/chromium"
    package static var available: Bool {
        FileManager.default.isExecutableFile(atPath: driverPath)
            && FileManager.default.isExecutableFile(atPath: browserPath)
    }

    package struct Failure: Error, CustomStringConvertible {
        package var description: String
        package init(description: String) { self.description = description }
    }

    private let driver = Process()
    private let port: Int
    private var session = ""

    package init(width: Int = 1400, height: Int = 900, arguments: [String] = []) async throws {
        port = Self.freePort()
        driver.executableURL = URL(fileURLWithPath: Self.driverPath)
        driver.arguments = ["--port=\(port)", "--allowed-ips=127.0.0.1"]
        driver.standardOutput = FileHandle.nullDevice
        driver.standardError = FileHandle.nullDevice
        try driver.run()
        // chromedriver takes a moment to listen (longer on a loaded machine).
        var ready = false
        for _ in 0..<300 where !ready {
            ready = (try? await call("GET", "/status")) != nil
            if !ready { try await Task.sleep(for: .milliseconds(50)) }
        }
        guard ready else {
            await quit()
            throw Failure(description: "chromedriver did not start on port \(port)")
        }
        let capabilities: [String: Any] = [
            "capabilities": [
                "alwaysMatch": [
                    "browserName": "chrome",
                    "goog:chromeOptions": [
                        "binary": Self.browserPath,
                        "args": [
                            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                            "--window-size=\(width),\(height)", "--force-device-scale-factor=1",
                        ] + arguments,
                    ],
                ]
            ]
        ]
        let created = try await call("POST", "/session", capabilities)
        guard let value = created["value"] as? [String: Any], let id = value["sessionId"] as? String else {
            throw Failure(description: "chromedriver gave no session: \(created)")
        }
        session = id
    }

    /// A port nothing listens on: bind port 0 and let the system choose.
    package static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        return bound ? Int(UInt16(bigEndian: address.sin_port)) : Int.random(in: 20_000...40_000)
    }

    package func quit() async {
        _ = try? await call("DELETE", "/session/\(session)")
        // chromedriver ignores SIGTERM while it serves; Foundation's waitUntilExit can hang
        // on Linux: end it outright and reap it.
        let pid = driver.processIdentifier
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }

    /// Sets the window's outer size.
    package func resize(width: Int, height: Int) async throws {
        _ = try await call("POST", "/session/\(session)/window/rect", ["width": width, "height": height])
    }

    package func open(_ url: String) async throws {
        _ = try await call("POST", "/session/\(session)/url", ["url": url])
    }

    /// Runs JavaScript in the page and returns its result.
    @discardableResult
    package func script(_ source: String, _ arguments: [Any] = []) async throws -> Any? {
        let result = try await call("POST", "/session/\(session)/execute/sync", ["script": source, "args": arguments])
        return result["value"]
    }

    /// Waits until `condition` (JavaScript returning a truthy value) holds.
    package func wait(
        _ what: String, timeout: Duration = .seconds(20), _ condition: String, sourceLocation: String = #function
    ) async throws {
        let clock = ContinuousClock()
        let end = clock.now + timeout
        while clock.now < end {
            if let value = try await script("return !!(\(condition));") as? Bool, value { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw Failure(description: "timed out waiting for \(what)")
    }

    package func element(_ testID: String) async throws -> String {
        try await wait(
            "[data-testid=\"\(testID)\"]", "document.querySelector('[data-testid=\"' + \(quoted(testID)) + '\"]')")
        let found = try await call(
            "POST", "/session/\(session)/element", ["using": "css selector", "value": "[data-testid=\"\(testID)\"]"])
        guard let value = found["value"] as? [String: Any], let id = value.values.first as? String else {
            throw Failure(description: "no element \(testID): \(found)")
        }
        return id
    }

    /// Clicks an element once the page's animations have finished, as a user taps what has
    /// come to rest: a click while a sheet still rises (0.35 s) landed on whatever was under
    /// the button's final place ("element click intercepted" in CI, or a silent miss).
    package func click(_ testID: String) async throws {
        let id = try await element(testID)
        try await wait(
            "the page's animations to finish", "document.getAnimations().every((a) => a.playState !== 'running')")
        _ = try await call("POST", "/session/\(session)/element/\(id)/click", [:] as [String: Any])
    }

    /// Types into an element; "\u{E007}" is Enter.
    package func type(_ testID: String, _ text: String) async throws {
        let id = try await element(testID)
        _ = try await call("POST", "/session/\(session)/element/\(id)/clear", [:] as [String: Any])
        _ = try await call("POST", "/session/\(session)/element/\(id)/value", ["text": text])
    }

    package func screenshot(to path: String) async throws {
        let shot = try await call("GET", "/session/\(session)/screenshot")
        guard let base64 = shot["value"] as? String, let data = Data(base64Encoded: base64) else {
            throw Failure(description: "no screenshot")
        }
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: path))
    }

    private func quoted(_ text: String) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: [text])) ?? Data(), as: UTF8.self)
            .dropFirst().dropLast().description
    }

    private func call(_ method: String, _ path: String, _ body: Any? = nil) async throws -> [String: Any] {
        let payload = try body.map { Array(try JSONSerialization.data(withJSONObject: $0)) }
        let (status, text) = try await httpRequestAsync(
            port: port, method: HTTPMethod(rawValue: method), path: path,
            body: payload ?? (method == "POST" ? Array("{}".utf8) : nil))
        let json = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
        if status >= 400 || status == 0 {
            throw Failure(description: "\(method) \(path): \(status) \(json["value"] ?? text)")
        }
        return json
    }
}

extension WebDriver {
    /// Opens the inspector of `served` in a fresh browser, waits for its socket, runs `body`,
    /// and always quits the browser.
    package static func withPage(_ served: ServedScript, _ body: (WebDriver) async throws -> Void) async throws {
        let browser = try await WebDriver()
        do {
            try await browser.open(served.inspector.url)
            try await browser.wait("the socket", "document.getElementById('connection').textContent === 'live'")
            try await body(browser)
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
    }

    /// Opens a page file (an exported prototype) from the file system in a fresh browser, runs
    /// `body`, and always quits the browser.
    package static func withFile(_ html: String, _ body: (WebDriver) async throws -> Void) async throws {
        let folder = ScriptFolder()
        let path = folder.write("index.html", html)
        let browser = try await WebDriver()
        do {
            try await browser.open("file://" + path)
            try await body(browser)
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
    }
}
