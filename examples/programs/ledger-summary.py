# Summarise a large result inside the program: ~2,000 ledger lines per call never reach the model.
from collections import defaultdict

totals = defaultdict(float)
for quarter in ["2025-Q3", "2025-Q4"]:
    rows = await mcp__finance__get_transactions(ticker="ACME", quarter=quarter)
    for row in rows:
        totals[row["account"]] += row["amount"]

for account, amount in sorted(totals.items()):
    print(f"{account:8} {amount:>12,.2f}")
