-- examples/recipes/discard.lua: "Discard this transfer?" when a started transfer is left.
return stack { initial = "accounts",
  endpoint { "accounts", title = "Accounts",
    rows = { { "New transfer", go = "accounts/transfer" } },
    modals = {
      stack { title = "Transfer", id = "transfer-sheet",
        endpoint { "./transfer", title = "Transfer",
          actions = { { "Type an amount", flag = { amount = "50" } } },
          children = { endpoint { "./review", title = "Review" } },
          -- Asked before anything removes this screen: a link, a row, Back, closing the sheet.
          -- true (or nil) goes, false stays, a string asks the user.
          leave = function(ctx, to)
            if flags.amount and to ~= "accounts/transfer/review" then
              return "Discard this transfer of " .. flags.amount .. "?"
            end
            return true
          end,
        },
      },
    },
  },
}
