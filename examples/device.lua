-- One script, two trees over the same paths and the same node ids, so the navigation state
-- (each tab's stack included) survives switching with `device pad` in the REPL or `--device pad`.
--   phone: a tab bar of a Mail navigation stack (inbox, then a message pushed over it) and
--          Settings; Drafts is a sheet presented over the inbox.
--   pad:   the Mail tab is a split view, as UIKit's UISplitViewController — such a stack shown
--          side by side where there is room: the stack's first screen is the sidebar (the
--          mailbox list, always shown), the screen above it the detail — and Drafts is a tab.

local pad = device.idiom == "pad"
local drafts = endpoint { "drafts", title = "Drafts" }

local tabs = {
  id = "tabs", title = "Mail",
  stack { id = "mail", title = pad and "Mailboxes" or "Mail",
    -- `split`: draw this stack as sidebar + detail where the device has room for both.
    presenter = { create = function() return { split = true } end },
    endpoint { "inbox", title = "Inbox",
      children = {
        endpoint { "./:message", title = "Message",
          presenter = { update = function(view, ctx) view.title = "Message " .. ctx.params.message end },
        },
      },
      modals = not pad and { drafts } or nil,
    },
  },
  endpoint { "settings", title = "Settings" },
}
if pad then table.insert(tabs, 2, drafts) end

return junction(tabs)
