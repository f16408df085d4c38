import ArgumentParser

@main
struct Luna: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "luna",
        abstract: "Declare and prototype app navigation with Lua route scripts.",
        version: "0.1.0"
    )
}
