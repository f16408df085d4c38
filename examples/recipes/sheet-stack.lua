-- examples/recipes/sheet-stack.lua: a compose sheet with a navigation stack of its own.
return stack { initial = "inbox",
  endpoint { "inbox", title = "Inbox",
    rows = { { "Write a message", go = "inbox/compose" } },
    modals = {
      -- The sheet is a stack: its screens push inside it, Back pops inside it, and closing
      -- the sheet (a dispatch of "inbox", or a swipe down synced as one) drops them all.
      stack { title = "New message", id = "compose-sheet",
        endpoint { "./compose", title = "Compose",
          rows = { { "Add recipients", go = "inbox/compose/to" } },
          children = { endpoint { "./to", title = "Recipients" } },
        },
      },
    },
  },
}
