-- revenue-trend.py in Lua (my-cool-proxy): three companies' revenue over eight quarters, the three
-- calls started together, only the summary back.
local tickers = {"ACME", "GLOBEX", "INITECH"}
local pending = {}
for i, t in ipairs(tickers) do
  pending[i] = finance.get_income_statements({ticker = t, quarters = 8})
end
local summary = {}
local lines = {}
for i, t in ipairs(tickers) do
  local statements = pending[i]:await().statements
  local first, last = statements[1].revenue, statements[#statements].revenue
  local change = (last - first) / first * 100
  summary[t] = math.floor(change * 10 + 0.5) / 10
  lines[#lines + 1] = string.format("%-8s %6s -> %6s USD m  (%+.1f%%)", t, first, last, change)
end
result({lines = lines, summary = summary})
