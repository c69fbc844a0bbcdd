"""Revenue change of companies over their last quarters, fastest growth first.

Calls mcp__finance__get_income_statements once per ticker, concurrently; returns {ticker: change in %}.
"""


async def main(*, tickers: list[str] = ["ACME", "GLOBEX", "INITECH"], quarters: int = 8):
    results = await asyncio.gather(
        *[mcp__finance__get_income_statements(ticker=t, quarters=quarters) for t in tickers]
    )
    change = {}
    for ticker, data in zip(tickers, results):
        revenue = [s["revenue"] for s in data["statements"]]
        change[ticker] = round((revenue[-1] - revenue[0]) / revenue[0] * 100, 1)
    for ticker in sorted(change, key=change.get, reverse=True):
        print(f"{ticker:8} {change[ticker]:+.1f}%")
    return change
