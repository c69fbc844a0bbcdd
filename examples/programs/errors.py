# A failing call raises ToolError; catching it lets the program go on.
for ticker in ["ACME", "NOPE"]:
    try:
        data = await mcp__finance__get_income_statements(ticker=ticker, quarters=1)
        print(ticker, data["statements"][0]["revenue"])
    except ToolError as error:
        print(f"{ticker}: skipped ({error})")
