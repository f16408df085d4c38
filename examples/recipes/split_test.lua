-- examples/recipes/split_test.lua
local pad = luna.open("split.lua", { device = "pad" })
local phone = luna.open("split.lua", { device = "phone" })

test("on a pad the mailbox and the message are one stack drawn as a split view", function()
  pad:go("mail/2")
  expect(pad:stack("mailbox")).to_equal({ "mail", "mail/:message" })
  expect(pad:tree_table().attributes.split).to_be(true)
end)

test("another message replaces the detail; the sidebar stays", function()
  pad:go("mail/1")
  pad:go("mail/2")
  expect(pad:stack("mailbox")).to_equal({ "mail", "mail/:message" })
  expect(pad.plan_text).to_equal({ "update mail/:message" })
end)

test("a phone shows the same state as one stack", function()
  phone:go("mail/2")
  expect(phone:stack("mailbox")).to_equal({ "mail", "mail/:message" })
  phone:back()
  expect(phone.route).to_be("mail")
end)
