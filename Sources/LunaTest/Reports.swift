import RouteCore

/// What `luna test` prints and writes: text for people, JSON Lines, JUnit XML.
package enum Reports {
    /// One JSON object per case.
    package static func json(_ file: TestRunner.FileResult) -> [String] {
        if let error = file.loadError {
            return [
                JSONWriter.object([
                    "file": JSONWriter.quoted(file.file), "status": JSONWriter.quoted("error"),
                    "message": JSONWriter.quoted(error),
                ])
            ]
        }
        return file.cases.map { result in
            JSONWriter.object([
                "file": JSONWriter.quoted(file.file), "test": JSONWriter.quoted(result.name),
                "status": JSONWriter.quoted(result.status.rawValue),
                "line": result.line.map(JSONWriter.quoted) ?? "null",
                "location": result.location.map(JSONWriter.quoted) ?? "null",
                "message": result.message.map(JSONWriter.quoted) ?? "null",
                "ms": String((result.milliseconds * 100).rounded() / 100),
            ])
        }
    }

    /// JUnit XML (the schema CI systems read): a testsuite per file, a testcase per case,
    /// `failure` for a failed case and `error` for a file that did not load.
    package static func junit(_ files: [TestRunner.FileResult]) -> String {
        var out = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>"]
        let tests = files.reduce(0) { $0 + max(1, $1.cases.count) }
        let failures = files.reduce(0) { $0 + $1.cases.filter { $0.status == .failed }.count }
        let errors = files.filter { $0.loadError != nil }.count
        let total = files.reduce(0.0) { $0 + $1.cases.reduce(0.0) { $0 + $1.milliseconds } } / 1000
        out.append(
            "<testsuites name=\"luna\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"\(errors)\" time=\"\(seconds(total))\">"
        )
        for (index, file) in files.enumerated() {
            let time = file.cases.reduce(0.0) { $0 + $1.milliseconds } / 1000
            let fileFailures = file.cases.filter { $0.status == .failed }.count
            out.append(
                "  <testsuite name=\"\(escape(file.file))\" id=\"\(index)\" tests=\"\(max(1, file.cases.count))\" failures=\"\(fileFailures)\" errors=\"\(file.loadError == nil ? 0 : 1)\" skipped=\"0\" time=\"\(seconds(time))\">"
            )
            if let error = file.loadError {
                out.append("    <testcase name=\"(load)\" classname=\"\(escape(file.file))\" time=\"0\">")
                out.append(
                    "      <error message=\"\(escape(firstLine(error)))\" type=\"load\">\(escape(error))</error>")
                out.append("    </testcase>")
            }
            for result in file.cases {
                let open =
                    "    <testcase name=\"\(escape(result.name))\" classname=\"\(escape(file.file))\" time=\"\(seconds(result.milliseconds / 1000))\""
                if result.status == .failed {
                    let message = result.message ?? "failed"
                    out.append(open + ">")
                    out.append(
                        "      <failure message=\"\(escape(firstLine(message)))\" type=\"expectation\">\(escape((result.location.map { $0 + ": " } ?? "") + message))</failure>"
                    )
                    out.append("    </testcase>")
                } else {
                    out.append(open + "/>")
                }
            }
            out.append("  </testsuite>")
        }
        out.append("</testsuites>")
        return out.joined(separator: "\n") + "\n"
    }

    static func seconds(_ value: Double) -> String { String((value * 1000).rounded() / 1000) }

    static func firstLine(_ text: String) -> String { String(text.split(separator: "\n", maxSplits: 1).first ?? "") }

    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n", "\t", "\r": out.unicodeScalars.append(scalar)
            default:
                // XML 1.0 has no place for other control characters.
                if scalar.value < 0x20 { out += "?" } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }
}
