-- One script, two trees over the same paths: a tab bar with stacks on a phone, a split
-- layout (a junction of a list and a detail stack) on a pad. Switch with `device pad` in
-- the REPL or `--device pad`; the navigation state is kept.

local inbox = function(extra)
  return endpoint { "inbox", title = "Inbox", children = extra }
end

if device.idiom == "pad" then
  return junction { id = "split", title = "Mail",
    stack { id = "sidebar", title = "Mailboxes",
      inbox {},
    },
    stack { id = "detail", title = "Message",
      endpoint { "inbox/:message", title = "Message" },
    },
    endpoint { "settings", title = "Settings" },
  }
end

return junction { id = "tabs", title = "Mail",
  stack { id = "mail", title = "Mail",
    inbox { endpoint { "inbox/:message", title = "Message" } },
  },
  endpoint { "settings", title = "Settings" },
}
