-- FeatherweightRouter's demo app, path for path (Demo/AppCoordinator.swift):
--   a tab bar of a Welcome navigation stack — welcome, welcome/register → welcome/register/step2,
--   and welcome/login, all pushed over welcome — and a leaf About tab (an endpoint as a tab).
-- The demo starts at `welcome`. Its README's animals/zoos example is examples/animals.lua.

return junction { title = "Demo",
  stack { title = "Welcome",
    endpoint { "welcome", title = "Welcome",
      children = {
        endpoint { "./register", title = "Register",
          children = { endpoint { "./step2", title = "Step 2" } },
        },
        endpoint { "./login", title = "Log in" },
      },
    },
  },

  endpoint { "about", title = "About" },
}
