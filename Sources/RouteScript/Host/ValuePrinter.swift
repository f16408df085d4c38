/// How the REPL shows Lua values: tables pretty-printed (nested, keys sorted, cycles marked,
/// depth- and size-capped), strings quoted inside tables, everything else as `tostring` does.
/// It runs in the script's VM under the call limits and reads tables with `next` only, so
/// no `__pairs` or `__index` metamethod runs.
enum ValuePrinter {
    static let source = #"""
        local next, type, tostring, select = next, type, tostring, select
        local format, concat, sort, rep = string.format, table.concat, table.sort, string.rep
        local MAX_DEPTH, MAX_ITEMS, WIDTH = 4, 100, 72
        local order = { number = 1, string = 2, boolean = 3 }
        local function before(a, b)
          local ta, tb = type(a), type(b)
          if ta ~= tb then return (order[ta] or 9) < (order[tb] or 9) or ((order[ta] or 9) == (order[tb] or 9) and ta < tb) end
          if ta == "number" or ta == "string" then return a < b end
          return tostring(a) < tostring(b)
        end
        local show
        local function scalar(v)
          if type(v) == "string" then return format("%q", v) end
          return tostring(v)
        end
        local function key(k, seen, depth, indent)
          if type(k) == "string" and #k <= 64 and k:match("^[%a_][%w_]*$") then return k end
          return "[" .. show(k, seen, depth, indent) .. "]"
        end
        show = function(v, seen, depth, indent)
          if type(v) ~= "table" then return scalar(v) end
          if seen[v] then return "<cycle: " .. tostring(v) .. ">" end
          if next(v) == nil then return "{}" end
          if depth >= MAX_DEPTH then return "{…}" end
          seen[v] = true
          local keys, n = {}, 0
          for k in next, v do
            n = n + 1
            if n > 10 * MAX_ITEMS then break end
            keys[n] = k
          end
          sort(keys, before)
          local length = 0
          while v[length + 1] ~= nil and length < n do length = length + 1 end
          local items, inner = {}, indent .. "  "
          for i, k in ipairs(keys) do
            if #items >= MAX_ITEMS then items[#items + 1] = "…" break end
            local value = show(v[k], seen, depth + 1, inner)
            if math.type(k) == "integer" and k >= 1 and k <= length then
              items[#items + 1] = value
            else
              items[#items + 1] = key(k, seen, depth + 1, inner) .. " = " .. value
            end
          end
          seen[v] = nil
          local line = "{ " .. concat(items, ", ") .. " }"
          if #line <= WIDTH and not line:find("\n", 1, true) then return line end
          return "{\n" .. inner .. concat(items, ",\n" .. inner) .. "\n" .. indent .. "}"
        end
        return function(...)
          local out = {}
          for i = 1, select("#", ...) do
            local v = select(i, ...)
            out[i] = type(v) == "table" and show(v, {}, 0, "") or tostring(v)
          end
          return out
        end
        """#
}
