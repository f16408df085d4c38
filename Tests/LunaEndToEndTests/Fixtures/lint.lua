return junction {
  stack {
    endpoint { "users/:id" },
    endpoint { "users/:name" },
    endpoint { "files/:_" },
    endpoint { "files/:path" },
    endpoint { "orders/:id", where = { id = "[0-9]{0}" } },
    endpoint { "about" },
  },
  stack { id = "dead",
    endpoint { "users/:who" },
  },
  stack {
    endpoint { "home", modals = { endpoint { "about" , id = "about-again" } } },
  },
}
