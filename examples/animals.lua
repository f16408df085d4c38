-- FeatherweightRouter's README example: a tab bar of an Animals and a Zoos stack, each a
-- list with a detail. FeatherweightRouter matched whole paths with regular expressions
-- (`(?<id>\w+)` under `animals`); Luna keeps that as `regex = …` (named groups bind
-- parameters, ranked after the patterns), and a pattern does the same job for zoos.

return junction { title = "Animals and zoos",
  stack { title = "Animals",
    endpoint { "animals", title = "Animals",
      children = {
        endpoint { regex = "animals/(?<id>\\w+)", id = "animal", title = "Animal" },
      },
    },
  },

  stack { title = "Zoos",
    endpoint { "zoos", title = "Zoos",
      children = {
        endpoint { "./:id", name = "zoo", title = "Zoo" },
      },
    },
  },
}
