-- Sends every request with the next Authorization header of WRK_TOKENS (one per line), round
-- robin. Each wrk thread has its own Lua state, so each thread walks the whole list.
local tokens = {}
for token in string.gmatch(os.getenv("WRK_TOKENS") or "", "[^\n]+") do
  tokens[#tokens + 1] = token
end
if #tokens == 0 then error("WRK_TOKENS is empty") end
local i = 0

request = function()
  i = i % #tokens + 1
  return wrk.format(nil, nil, { Authorization = tokens[i] })
end
