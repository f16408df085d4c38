-- Lunabank: the navigation real banking apps have. An account's detail lists its payees'
-- accounts, and opening one pushes the same screen again (Back returns to the first account);
-- a transfer sheet opens over whatever screen is shown and closes back to it; its payee
-- picker hands the chosen payee back to the form; a sign-in gate; a payees tab.
-- `luna examples/bank.lua`, then `push accounts/5678`, `go transfer`, `go transfer/payee`,
-- `back name=Ada`.

return switcher {
  initial = "accounts",
  -- The flag values `luna verify` tries (flipped at any point).
  flags = { signedIn = { "yes", "no" } },
  links = { schemes = { "lunabank" }, hosts = { "bank.example" } },

  endpoint { "signin", title = "Sign in", link = false,
    actions = { { "Sign in with Face ID", flag = { signedIn = "yes" }, continue = true, go = "accounts" } },
  },

  junction { title = "Lunabank", id = "tabs",
    enabled = function() return flags.signedIn ~= "no" end, fallback = "signin",

    -- A sheet of the tab bar: over the screen shown (an account, a pushed one, a payee),
    -- which stays as it was; closing it returns there.
    modals = {
      stack { title = "Transfer", id = "transfer-flow",
        endpoint { "transfer", title = "New transfer",
          actions = { { "Choose payee", go = "transfer/payee" } },
          -- The picker's choice comes back here (once); ctx.result shows it again after a
          -- restoration or a reload.
          on_result = function(view, ctx, value) view.title = "Transfer to " .. value.name end,
          presenter = {
            update = function(view, ctx)
              view.title = ctx.result and ("Transfer to " .. ctx.result.name) or "New transfer"
            end,
          },
          children = {
            endpoint { "./payee", title = "Choose payee", link = false,
              rows = {
                { "Ada Lovelace", result = { name = "Ada", payee = "ada" } },
                { "Linus Torvalds", result = { name = "Linus", payee = "linus" } },
              },
            },
          },
        },
      },
    },

    stack { title = "Accounts", id = "accounts-tab",
      endpoint { "accounts", title = "My accounts",
        actions = { { "Transfer", go = "transfer" } },
        rows = {
          { "Everyday •1234", go = "accounts/1234" },
          { "Savings •5678", go = "accounts/5678" },
        },
        children = {
          endpoint { "./:account", title = "Account", name = "account",
            actions = { { "Transfer", go = "transfer" } },
            where = { account = "[0-9]{4}" },
            sample = { account = { "1234", "5678" } },
            presenter = { update = function(view, ctx) view.title = "Account •" .. ctx.params.account end },
            -- A payee's account is the same screen again, pushed over this one.
            rows = {
              { "Savings •5678 (moved €50 last week)", push = "accounts/5678" },
              { "Everyday •1234 (the salary account)", push = "accounts/1234" },
            },
            children = {
              endpoint { "./transactions/:tx", title = "Payment", name = "transaction",
                where = { tx = "t[0-9]+" },
                sample = { tx = { "t1", "t2" } },
              },
            },
          },
        },
      },
    },

    stack { title = "Payees", id = "payees-tab",
      endpoint { "payees", title = "Payees",
        rows = { { "Ada Lovelace", go = "payees/ada" }, { "Linus Torvalds", go = "payees/linus" } },
        children = {
          endpoint { "./:payee", title = "Payee", name = "payee",
            presenter = { update = function(view, ctx) view.title = "Payee " .. ctx.params.payee end },
            -- Their account, pushed over the payee (the accounts stack is another tab's).
            actions = { { "Their account", go = "accounts/5678" } },
          },
        },
      },
    },
  },
}
