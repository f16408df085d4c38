@testable import RouteCore

/// MonarchRouter's example app: a switcher of login / onboarding / a tab bar of Today (with a
/// story modal), Books (with a book detail) and Profile (with a modal tab bar of an Orders
/// stack and a Delivery screen).
enum MonarchExample {
    static func tree() throws -> RouteTree {
        try RouteTree(
            root: .switcher([
                .endpoint("login", title: "Login"),
                .stack([.endpoint("onboarding", title: "Welcome")], title: "Onboarding"),
                .junction(
                    [
                        .stack(
                            [
                                .endpoint(
                                    "today", title: "Today",
                                    modals: [
                                        .endpoint(
                                            "today/story/:type/:id", title: "Story", name: "story",
                                            where: ["id": try Validator(regex: "[0-9]+")])
                                    ])
                            ], title: "Today"),
                        .stack(
                            [.endpoint("books", title: "Books", children: [.endpoint("./:id", name: "book")])],
                            title: "Books"),
                        .stack(
                            [
                                .endpoint(
                                    "profile", title: "Profile",
                                    modals: [
                                        .junction(
                                            [
                                                .stack(
                                                    [
                                                        .endpoint(
                                                            "orders", title: "Orders",
                                                            children: [.endpoint("orders/:id", title: "Order")])
                                                    ], title: "Orders"),
                                                .endpoint("delivery", title: "Delivery"),
                                            ], title: "Account")
                                    ])
                            ], title: "Profile"),
                    ], title: "Main"),
            ]))
    }
}
