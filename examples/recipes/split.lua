-- examples/recipes/split.lua: a mailbox and a message, side by side on a pad.
return stack { initial = "mail", id = "mailbox", title = "Mail",
  -- `split`: on a pad the inspector draws this stack as a sidebar and a detail, as the app's
  -- UISplitViewController shows it (docs/recipes.md); on a phone it is one stack.
  attributes = { split = true },
  endpoint { "mail", title = "Mailbox",
    children = { endpoint { "./:message", title = "Message", sample = { message = { "1", "2" } } } },
  },
}
