-- ledger-summary.py in Lua (my-cool-proxy): ~2,000 ledger lines per call summed inside the script.
local totals = {}
for _, quarter in ipairs({"2025-Q3", "2025-Q4"}) do
  local rows = finance.get_transactions({ticker = "ACME", quarter = quarter}):await()
  for _, row in ipairs(rows) do
    totals[row.account] = (totals[row.account] or 0) + row.amount
  end
end
local accounts = {}
for account in pairs(totals) do accounts[#accounts + 1] = account end
table.sort(accounts)
local lines = {}
for _, account in ipairs(accounts) do
  lines[#lines + 1] = string.format("%-8s %12.2f", account, totals[account])
end
result(table.concat(lines, "\n"))
