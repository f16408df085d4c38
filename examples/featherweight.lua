-- FeatherweightRouter's demo, done with Luna's patterns:
--   a tab bar whose first tab is a welcome → register → step 2 flow, a login tab,
--   a zoo tab (the README's animals/zoos example), and a leaf About tab (an endpoint as a tab).
-- FeatherweightRouter matched whole paths with regular expressions; Luna keeps that as
-- `regex = …` (named groups bind parameters) and ranks it after the patterns.

return junction { title = "Demo",
  stack { title = "Welcome",
    endpoint { "welcome", title = "Welcome",
      children = {
        endpoint { "./register", title = "Register",
          children = { endpoint { "./step2", title = "Step 2" } },
        },
      },
    },
  },

  stack { title = "Login",
    endpoint { "login", title = "Log in" },
  },

  stack { title = "Zoos",
    endpoint { "zoos", title = "Zoos",
      children = {
        endpoint { "./:zoo", name = "zoo", title = "Zoo",
          children = {
            -- A pattern where one is enough…
            endpoint { "./animals/:animal", name = "animal", title = "Animal" },
          },
        },
      },
    },
    -- …and a FeatherweightRouter-style regex for the old deep links: /animals/<kind>.
    endpoint { regex = "animals/(?<animal>[a-z]+)", id = "legacy-animal", title = "Animal (legacy link)" },
  },

  endpoint { "about", title = "About" },
}
