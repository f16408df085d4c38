-- MonarchRouter's example app, as a Luna route script.
--   login · onboarding (greeting ?name=) · a tab bar of Today, Books and Profile
--   Today presents a story modal (validated id); Books pushes a book detail;
--   Profile presents a modal tab bar of an Orders stack and a Delivery screen.
-- Try: scripts/repl examples/books.lua, then `go books/42?title=Dune` or `/today/story/news/7`.

return switcher {
  endpoint { "login", title = "Login" },

  stack { title = "Onboarding",
    endpoint { "onboarding", title = "Welcome",
      presenter = {
        update = function(view, ctx)
          view.greeting = "Hello, " .. (ctx.query.name or "stranger")
        end,
      },
    },
  },

  junction { title = "Main",
    stack { title = "Today",
      endpoint { "today", title = "Today",
        modals = {
          endpoint { "./story/:type/:id", title = "Story", name = "story",
                     where = { id = "[0-9]+" } },
        },
      },
    },
    stack { title = "Books",
      endpoint { "books", title = "Books",
        children = {
          endpoint { "./:id", name = "book",
            presenter = function(ctx)
              return { title = ctx.query.title or ("Book " .. ctx.params.id) }
            end,
          },
        },
      },
    },
    stack { title = "Profile",
      endpoint { "profile", title = "Profile",
        modals = {
          junction { title = "Account",
            stack { title = "Orders",
              endpoint { "orders", title = "Orders",
                children = { endpoint { "./:id", title = "Order", where = { id = "[0-9]+" } } },
              },
            },
            endpoint { "delivery", title = "Delivery" },
          },
        },
      },
    },
  },

  endpoint { "...", title = "Not found" },
}
