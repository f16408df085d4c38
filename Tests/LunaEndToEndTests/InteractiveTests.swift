import Foundation
import LunaTestSupport
import Testing

#if canImport(Glibc)
    import Glibc

    // Glibc's Swift module hides the pseudo-terminal functions (they need _XOPEN_SOURCE);
    // their C declarations are stable, so the test declares them itself.
    @_silgen_name("posix_openpt") private func posix_openpt(_ flags: Int32) -> Int32
    @_silgen_name("grantpt") private func grantpt(_ fd: Int32) -> Int32
    @_silgen_name("unlockpt") private func unlockpt(_ fd: Int32) -> Int32
    @_silgen_name("ptsname") private func ptsname(_ fd: Int32) -> UnsafeMutablePointer<CChar>?

    /// `luna repl` on a pseudo-terminal, typed at like a person would.
    final class TerminalSession {
        let master: Int32
        let pid: pid_t
        private(set) var screen = ""

        init(_ arguments: [String], home: String, standardOutput: Int32? = nil) throws {
            master = posix_openpt(O_RDWR | O_NOCTTY)
            guard master >= 0, grantpt(master) == 0, unlockpt(master) == 0, let name = ptsname(master) else {
                throw POSIXError(.ENOTTY)
            }
            let slave = String(cString: name)
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            posix_spawn_file_actions_addopen(&actions, 0, slave, O_RDWR, 0)
            posix_spawn_file_actions_adddup2(&actions, standardOutput ?? 0, 1)
            posix_spawn_file_actions_adddup2(&actions, 0, 2)
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            // util-linux `setsid --ctty` starts a session whose controlling terminal is the pty
            // (so Ctrl-C raises SIGINT), then execs luna in place.
            let argv = (["/usr/bin/setsid", "--ctty", lunaBinary] + arguments).map { strdup($0) } + [nil]
            var environment = ProcessInfo.processInfo.environment
            environment["HOME"] = home
            environment["TERM"] = "xterm"
            environment["NO_COLOR"] = "1"
            let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            var child: pid_t = 0
            let status = posix_spawn(&child, "/usr/bin/setsid", &actions, &attributes, argv, envp)
            argv.forEach { free($0) }
            envp.forEach { free($0) }
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
            guard status == 0 else { throw POSIXError(.ECHILD) }
            pid = child
        }

        func type(_ text: String) {
            _ = text.utf8CString.withUnsafeBufferPointer { write(master, $0.baseAddress, $0.count - 1) }
        }

        /// Reads what the terminal shows until `done` holds for the screen, or 20 s pass.
        private func readScreen(until done: (String) -> Bool) -> Bool {
            let limit = ContinuousClock.now + .seconds(20)
            while ContinuousClock.now < limit {
                if done(screen) { return true }
                var fds = [pollfd(fd: master, events: Int16(POLLIN), revents: 0)]
                guard poll(&fds, 1, 200) >= 0 else { return false }
                if fds[0].revents != 0 {
                    var chunk = [UInt8](repeating: 0, count: 4096)
                    let count = read(master, &chunk, chunk.count)
                    if count <= 0 { return false }
                    screen += String(decoding: chunk[0..<count], as: UTF8.self)
                }
            }
            return false
        }

        /// Reads until the screen contains `text` (after `from`).
        @discardableResult
        func wait(for text: String, after from: String.Index? = nil) -> Bool {
            readScreen { screen in (from.map { screen[$0...] } ?? screen[...]).contains(text) }
        }

        /// Reads until the screen ends with the prompt (the REPL is waiting for input).
        @discardableResult
        func waitForPrompt() -> Bool { readScreen { $0.hasSuffix("luna> ") } }

        /// Waits (up to 20 s) for the process to end; its exit status. Once the child closes
        /// the pty, poll reports a hang-up at once, so the loop also naps between checks.
        func exitStatus() -> Int32 {
            var status: Int32 = 0
            let limit = ContinuousClock.now + .seconds(20)
            while ContinuousClock.now < limit {
                if waitpid(pid, &status, WNOHANG) == pid { return (status >> 8) & 0xff }
                var fds = [pollfd(fd: master, events: Int16(POLLIN), revents: 0)]
                if poll(&fds, 1, 100) > 0, fds[0].revents & Int16(POLLIN) != 0 {
                    var chunk = [UInt8](repeating: 0, count: 4096)
                    _ = read(master, &chunk, chunk.count)
                } else {
                    usleep(10_000)
                }
            }
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
            return -1
        }

        deinit { close(master) }
    }

    @Suite struct InteractiveTests {
        /// `luna repl app.lua | tee log`: typed at on a terminal, writing to a pipe. It answered
        /// nothing (not `state`, `quit` or Ctrl-D) and had to be killed.
        @Test func aTerminalWritingToAPipeIsAnswered() throws {
            let home = ScriptFolder()
            var ends: [Int32] = [0, 0]
            #expect(pipe(&ends) == 0)
            let terminal = try TerminalSession(
                ["repl", example("shop.lua"), "--no-watch"], home: home.path, standardOutput: ends[1])
            close(ends[1])
            terminal.type("state\r")
            terminal.type("quit\r")
            #expect(terminal.exitStatus() == 0)
            var output = Data()
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(ends[0], &chunk, chunk.count)
                if count <= 0 { break }
                output.append(contentsOf: chunk[0..<count])
            }
            close(ends[0])
            let text = String(decoding: output, as: UTF8.self)
            #expect(text.contains("└── stack stack:account \"Account\""), "\(text)")
            #expect(text.contains("home"))
        }

        @Test func historyCompletionCtrlCAndCtrlDOnARealTerminal() throws {
            let home = ScriptFolder()
            let terminal = try TerminalSession(["repl", example("books.lua"), "--no-watch"], home: home.path)
            #expect(terminal.wait(for: "luna> "))
            // Tab completes a command (libedit echoes only the completed remainder, so the
            // effect is checked after Enter).
            var mark = terminal.screen.endIndex
            terminal.type("hel\t\r")
            #expect(terminal.wait(for: "commands:", after: mark))
            // …and a route pattern.
            mark = terminal.screen.endIndex
            terminal.type("go onb\t\r")
            #expect(terminal.wait(for: "onboarding → onboarding", after: mark))
            // Ctrl-C drops the line being typed; the REPL goes on.
            mark = terminal.screen.endIndex
            terminal.type("go nowhere-at-all")
            #expect(terminal.wait(for: "nowhere-at-all", after: mark))
            terminal.type("\u{03}")
            #expect(terminal.wait(for: "^C", after: mark))
            mark = terminal.screen.endIndex
            terminal.type("= 'é' .. '✓'\r")
            #expect(terminal.wait(for: "é✓", after: mark))
            #expect(!terminal.screen[mark...].contains("nowhere-at-all"))
            // Ctrl-D on an empty line ends the REPL; the history was saved (libedit's format
            // escapes spaces as \040).
            #expect(terminal.waitForPrompt())
            terminal.type("\u{04}")
            #expect(terminal.exitStatus() == 0)
            let history = try String(contentsOfFile: home.path + "/.luna_history", encoding: .utf8)
                .replacingOccurrences(of: "\\040", with: " ")
            #expect(history.hasPrefix("_HiStOrY_V2_"))
            #expect(history.contains("go onboarding"))
            #expect(history.contains("help"))
            #expect(!history.contains("nowhere-at-all"))
            // A second session sees the history: Up recalls the last line.
            let again = try TerminalSession(["repl", example("books.lua"), "--no-watch"], home: home.path)
            #expect(again.wait(for: "luna> "))
            mark = again.screen.endIndex
            again.type("\u{1B}[A\r")
            #expect(again.wait(for: "é✓", after: mark))
            #expect(again.waitForPrompt())
            again.type("quit\r")
            #expect(again.exitStatus() == 0)
        }

        @Test func aReloadNoticeAppearsAtThePromptAndKeepsTheTypedLine() throws {
            let home = ScriptFolder()
            let script = home.write("live.lua", HotReloadTests.version1)
            let terminal = try TerminalSession(["repl", script, "books"], home: home.path)
            #expect(terminal.waitForPrompt())
            terminal.type("go boo")
            #expect(terminal.wait(for: "go boo"))
            var mark = terminal.screen.endIndex
            try EditorSave.tempThenRename.save(HotReloadTests.version2, to: script)
            #expect(terminal.wait(for: "reloaded in", after: mark))
            // The prompt comes back with what was typed.
            #expect(terminal.wait(for: "luna> go boo", after: mark))
            mark = terminal.screen.endIndex
            terminal.type("ks/3\r")
            #expect(terminal.wait(for: "books/3 → books/:id", after: mark))
            #expect(terminal.waitForPrompt())
            terminal.type("quit\r")
            #expect(terminal.exitStatus() == 0)
        }
    }
#endif
