import CEdit
import RouteCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Interactive line editing with libedit's callback interface, so the loop can poll the
/// terminal and the file watcher together and print reload notices while the user sits at
/// the prompt. History persists in a file; Tab completes commands, route patterns and
/// names; Ctrl-C cancels the line; Ctrl-D ends input.
///
/// libedit's C interface is process-global (one prompt, one completion function), so the
/// editor keeps its state in process globals; there is only ever one editor.
package final class LineEditor {
    package private(set) var prompt: String
    /// The prompt of a first line; ``continuationPrompt`` is shown while a Lua chunk goes on.
    let firstPrompt: String
    package static let continuationPrompt = ">> "
    let historyPath: String?

    /// `completions` gets the word being completed and the text of the line before it.
    package init(prompt: String, historyPath: String?, completions: @escaping (String, String) -> [String]) {
        self.prompt = prompt
        self.firstPrompt = prompt
        self.historyPath = historyPath
        EditorState.completions = completions
        // Non-ASCII input needs a UTF-8 locale; fall back to C.UTF-8 when the environment has none.
        if setlocale(LC_ALL, "") == nil || String(cString: setlocale(LC_CTYPE, nil)) == "C" {
            setlocale(LC_CTYPE, "C.UTF-8")
        }
        luna_rl_configure(lunaAttemptCompletion)
        using_history()
        if let historyPath { read_history(historyPath) }
        rl_callback_handler_install(prompt, lunaLineHandler)
        // libedit's callback mode drops end-of-file (rl_callback_read_char returns early when
        // el_gets reports it), so Ctrl-D is bound to a function that ends input on an empty line.
        rl_add_defun("luna-end-of-input", lunaEndOfInput, 4)
    }

    /// Shows a fresh prompt after the output of the lines just read: the continuation
    /// prompt when `continuing` an unfinished Lua chunk.
    package func resume(continuing: Bool = false) {
        prompt = continuing ? Self.continuationPrompt : firstPrompt
        rl_callback_handler_install(prompt, lunaLineHandler)
    }

    /// Reads the available keystrokes; returns the lines completed (nil at Ctrl-D). When it
    /// returns lines, the prompt is taken down until ``resume()``, so output does not land
    /// after a prompt already drawn.
    package func readAvailable() -> [String]? {
        rl_callback_read_char()
        let lines = EditorState.lines
        EditorState.lines = []
        if !lines.isEmpty || EditorState.atEnd { rl_callback_handler_remove() }
        for line in lines where !line.trimmingSpaces.isEmpty {
            add_history(line)
            if let historyPath { write_history(historyPath) }
        }
        if EditorState.atEnd { return lines.isEmpty ? nil : lines }
        return lines
    }

    /// Prints text above the prompt, keeping what the user was typing: erase the visible
    /// line, print, then let libedit redraw the prompt and the line buffer (it still holds the
    /// text; rl_replace_line cannot be used, libedit ignores an empty replacement).
    package func printAbovePrompt(_ text: String) {
        writeAll(STDOUT_FILENO, "\r\u{1B}[K" + text + "\n")
        rl_forced_update_display()
    }

    /// Ctrl-C: drop the line being typed and show a fresh prompt. (libedit's
    /// rl_replace_line ignores an empty replacement, so the text is deleted instead.)
    package func cancelLine() {
        let end = luna_rl_end()
        if end > 0 { rl_delete_text(0, end) }
        luna_rl_set_point(0)
        rl_callback_handler_remove()
        writeAll(STDOUT_FILENO, "^C\n")
        prompt = firstPrompt
        rl_callback_handler_install(prompt, lunaLineHandler)
    }

    /// Restores the terminal and lets go of the completion closure (it holds the host, which
    /// must not outlive the REPL in a process-global).
    package func close() {
        EditorState.completions = { _, _ in [] }
        EditorState.candidates = []
        rl_callback_handler_remove()
        writeAll(STDOUT_FILENO, "\n")
    }
}

/// libedit's process-global state, touched only from the REPL's one thread.
enum EditorState {
    nonisolated(unsafe) static var lines: [String] = []
    nonisolated(unsafe) static var atEnd = false
    nonisolated(unsafe) static var completions: (String, String) -> [String] = { _, _ in [] }
    nonisolated(unsafe) static var candidates: [String] = []
}

private func lunaLineHandler(_ line: UnsafeMutablePointer<CChar>?) {
    guard let line else {
        EditorState.atEnd = true
        return
    }
    EditorState.lines.append(String(cString: line))
    free(line)
}

private func lunaEndOfInput(_ count: Int32, _ key: Int32) -> Int32 {
    if luna_rl_end() == 0 { EditorState.atEnd = true }
    return 0
}

private func lunaAttemptCompletion(
    _ text: UnsafePointer<CChar>?, _ start: Int32, _ end: Int32
) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
    let word = text.map { String(cString: $0) } ?? ""
    var before = ""
    if let line = luna_rl_line(), start > 0 {
        before = String(decoding: UnsafeRawBufferPointer(start: line, count: Int(start)), as: UTF8.self)
    }
    EditorState.candidates = EditorState.completions(word, before)
    luna_rl_completion_over()
    return rl_completion_matches(word, lunaCompletionEntry)
}

private func lunaCompletionEntry(_ text: UnsafePointer<CChar>?, _ state: Int32) -> UnsafeMutablePointer<CChar>? {
    guard Int(state) < EditorState.candidates.count else { return nil }
    return strdup(EditorState.candidates[Int(state)])
}
