-- MonarchRouter's example app, as a Luna route script.
--   login · onboarding (greeting ?name=) · a tab bar of Today, Books and Profile
--   Today pushes All news and presents a story modal (validated id); Books pushes a book
--   detail; an unknown path shows Not found inside the Today tab;
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
        children = {
          endpoint { "./all_news", title = "All news", name = "all_news" },
          -- Not found: pushed inside the main section, so the tab bar stays (as apps do).
          endpoint { "...", title = "Not found", id = "not-found" },
        },
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
            -- update runs on every activation with new parameters or query, so the title
            -- follows the book shown (a create-only title would stay on the first book).
            presenter = {
              update = function(view, ctx)
                view.title = ctx.query.title or ("Book " .. ctx.params.id)
              end,
            },
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

}
