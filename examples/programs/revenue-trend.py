# Revenue trend of three companies over eight quarters: 3 tool calls, run concurrently,
# and only the summary comes back to the model.
import asyncio

tickers = ["ACME", "GLOBEX", "INITECH"]
results = await asyncio.gather(
    *[mcp__finance__get_income_statements(ticker=t, quarters=8) for t in tickers]
)

summary = {}
for ticker, data in zip(tickers, results):
    revenue = [s["revenue"] for s in data["statements"]]
    change = (revenue[-1] - revenue[0]) / revenue[0] * 100
    summary[ticker] = round(change, 1)
    trend = "up" if change > 0 else "down"
    print(f"{ticker:8} {revenue[0]:>6} -> {revenue[-1]:>6} USD m  ({change:+.1f}%, {trend})")

best = max(summary, key=summary.get)
print(f"Fastest growth: {best}")
emit(summary)
