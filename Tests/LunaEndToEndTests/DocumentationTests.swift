import Foundation
import LunaTestSupport
import Testing

/// The README and the guides in docs/ are tested as a reader uses them (CONTRIBUTING.md,
/// "Docs"): every relative link and its #anchor resolve; every ```lua block loads with
/// `luna check` (no errors), unless it is marked ```lua fragment; a ```lua test block passes
/// under `luna test` beside the examples; a block whose first line names a file
/// (`-- examples/recipes/sheet.lua`) without "(shortened)" is that file, byte for byte.
@Suite struct DocumentationTests {
    struct Block {
        var file: String
        var line: Int
        var info: String
        var text: String
        var place: String { "\(file):\(line)" }
    }

    /// README.md and every docs/*.md, relative to the repository.
    static func documents() throws -> [String] {
        let guides = try FileManager.default.contentsOfDirectory(atPath: repositoryRoot + "/docs")
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return ["README.md", "CONTRIBUTING.md"] + guides
    }

    static func read(_ file: String) throws -> String {
        try String(contentsOfFile: repositoryRoot + "/" + file, encoding: .utf8)
    }

    /// The fenced blocks of a document, with the info string after the fence.
    static func blocks(_ file: String) throws -> [Block] {
        var result: [Block] = []
        var open: Block?
        for (number, line) in try read(file).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("```") {
                if let block = open {
                    result.append(block)
                    open = nil
                } else {
                    open = Block(file: file, line: number + 1, info: String(line.dropFirst(3)), text: "")
                }
            } else if open != nil {
                open?.text += line + "\n"
            }
        }
        return result
    }

    /// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens.
    static func anchor(_ heading: String) -> String {
        var result = ""
        for character in heading.lowercased() {
            if character.isLetter || character.isNumber || character == "-" || character == "_" {
                result.append(character)
            } else if character == " " {
                result.append("-")
            }
        }
        return result
    }

    static func anchors(_ file: String) throws -> Set<String> {
        var inFence = false
        var result: Set<String> = []
        for line in try read(file).split(separator: "\n") {
            if line.hasPrefix("```") { inFence.toggle() }
            guard !inFence, line.hasPrefix("#") else { continue }
            result.insert(anchor(line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)))
        }
        return result
    }

    /// Markdown links `[text](target)` outside code, that are not URLs.
    static func relativeLinks(_ file: String) throws -> [(line: Int, target: String)] {
        var result: [(Int, String)] = []
        var inFence = false
        let link = /\]\(([^)\s]+)\)/
        for (number, line) in try read(file).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("```") { inFence.toggle() }
            if inFence { continue }
            // Inline code is not a link (`[a](b)` in backquotes).
            let prose = line.split(separator: "`", omittingEmptySubsequences: false).enumerated()
                .filter { $0.offset % 2 == 0 }.map(\.element).joined(separator: " ")
            for match in prose.matches(of: link) {
                let target = String(match.output.1)
                if target.contains("://") || target.hasPrefix("mailto:") { continue }
                result.append((number + 1, target))
            }
        }
        return result
    }

    @Test func everyRelativeLinkAndAnchorResolves() throws {
        var checked = 0
        for file in try Self.documents() {
            let folder = (file as NSString).deletingLastPathComponent
            for (line, target) in try Self.relativeLinks(file) {
                checked += 1
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                let path = String(parts[0])
                let resolved = path.isEmpty ? file : (folder.isEmpty ? path : folder + "/" + path)
                let normalized = (resolved as NSString).standardizingPath
                #expect(
                    FileManager.default.fileExists(atPath: repositoryRoot + "/" + normalized),
                    "\(file):\(line): '\(target)' names no file")
                if parts.count == 2, normalized.hasSuffix(".md") {
                    #expect(
                        try Self.anchors(normalized).contains(String(parts[1])),
                        "\(file):\(line): '\(target)' names no heading of \(normalized)")
                }
            }
        }
        #expect(checked > 15, "links found: \(checked)")
    }

    @Test func everyLuaBlockLoadsOrPasses() throws {
        var checked = 0
        for file in try Self.documents() {
            for block in try Self.blocks(file) where block.info.hasPrefix("lua") {
                let words = block.info.split(separator: " ")
                if words.contains("fragment") { continue }
                checked += 1
                let folder = ScriptFolder()
                if words.contains("test") {
                    // Beside copies of the scripts of the folder its first line names
                    // (`-- examples/recipes/split_test.lua`), else of examples/.
                    let named = block.text.split(separator: "\n").first.flatMap { line in
                        line.hasPrefix("-- examples/") ? line.dropFirst(3).prefix { $0 != " " && $0 != ":" } : nil
                    }
                    let source =
                        repositoryRoot + "/" + (named.map { ($0 as NSString).deletingLastPathComponent } ?? "examples")
                    for name in try FileManager.default.contentsOfDirectory(atPath: source)
                    where name.hasSuffix(".lua") && !name.hasSuffix("_test.lua") {
                        folder.write(name, try String(contentsOfFile: source + "/" + name, encoding: .utf8))
                    }
                    let path = folder.write("doc_test.lua", block.text)
                    let result = try luna(["test", path])
                    #expect(result.status == 0, "\(block.place): \(result.stdout)\(result.stderr)")
                } else {
                    let path = folder.write("doc.lua", block.text)
                    let result = try luna(["check", path])
                    #expect(result.status == 0, "\(block.place): \(result.stdout)\(result.stderr)")
                }
            }
        }
        #expect(checked >= 3, "blocks checked: \(checked)")
    }

    @Test func aBlockThatNamesItsFileIsThatFile() throws {
        var checked = 0
        for file in try Self.documents() {
            for block in try Self.blocks(file) {
                guard let first = block.text.split(separator: "\n").first, first.hasPrefix("-- examples/") else {
                    continue
                }
                let name = first.dropFirst(3).prefix { $0 != " " && $0 != ":" }
                if first.contains("(shortened)") { continue }
                checked += 1
                let actual = try? String(contentsOfFile: repositoryRoot + "/" + name, encoding: .utf8)
                #expect(actual == block.text, "\(block.place): the block differs from \(name)")
            }
        }
        #expect(checked >= 6, "blocks checked: \(checked)")  // the three recipes' scripts and their tests
    }
}
