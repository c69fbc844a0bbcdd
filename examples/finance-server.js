#!/usr/bin/env node
// Example MCP server for ptc-mcp's README: deterministic quarterly statements for a few tickers,
// plus a tool whose result is large. Run over stdio: `node examples/finance-server.js`.
import {McpServer} from '@modelcontextprotocol/server'
import {StdioServerTransport} from '@modelcontextprotocol/server/stdio'
import * as z from 'zod/v4'

const TICKERS = {
  ACME: {name: 'Acme Corp', base: 1200, growth: 0.06, margin: 0.18},
  GLOBEX: {name: 'Globex Inc', base: 860, growth: -0.02, margin: 0.11},
  INITECH: {name: 'Initech', base: 430, growth: 0.11, margin: 0.07},
}
const QUARTERS = ['2024-Q1', '2024-Q2', '2024-Q3', '2024-Q4', '2025-Q1', '2025-Q2', '2025-Q3', '2025-Q4']

/** Same inputs, same numbers: a small seasonal wiggle on compound growth. */
function statement(ticker, quarter, index) {
  const {base, growth, margin} = TICKERS[ticker]
  const revenue = Math.round(base * (1 + growth) ** index * (1 + 0.03 * Math.sin(index * 1.7)))
  const operatingIncome = Math.round(revenue * (margin + 0.01 * Math.cos(index)))
  return {
    ticker,
    quarter,
    currency: 'USD',
    unit: 'millions',
    revenue,
    cost_of_revenue: Math.round(revenue * 0.58),
    operating_income: operatingIncome,
    net_income: Math.round(operatingIncome * 0.79),
    employees: Math.round(base * 4.1 + index * 37),
    segments: ['products', 'services', 'licensing'].map((segment, i) => ({
      segment,
      revenue: Math.round(revenue * [0.55, 0.35, 0.1][i]),
    })),
  }
}

const server = new McpServer({name: 'finance-example', version: '1.0.0'})
const json = (value) => ({
  content: [{type: 'text', text: JSON.stringify(value, null, 2)}],
  structuredContent: value,
})
const known = z.enum(Object.keys(TICKERS))

server.registerTool(
  'list_companies',
  {
    description: 'List the tickers this server has data for.',
    inputSchema: z.object({}),
    annotations: {readOnlyHint: true},
  },
  async () => json({companies: Object.entries(TICKERS).map(([ticker, c]) => ({ticker, name: c.name}))}),
)

server.registerTool(
  'get_income_statements',
  {
    description: 'Quarterly income statements of one company, newest last (USD millions).',
    inputSchema: z.object({
      ticker: known.describe('Ticker, e.g. ACME.'),
      quarters: z.number().int().min(1).max(8).default(8).describe('How many of the latest quarters.'),
    }),
    outputSchema: z.object({ticker: z.string(), statements: z.array(z.record(z.string(), z.unknown()))}),
    annotations: {readOnlyHint: true},
  },
  async ({ticker, quarters}) => {
    const statements = QUARTERS.map((q, i) => statement(ticker, q, i)).slice(-quarters)
    return json({ticker, statements})
  },
)

server.registerTool(
  'get_transactions',
  {
    description: 'Every ledger line of one company for a quarter: a large result (about 2,000 rows).',
    inputSchema: z.object({ticker: known, quarter: z.enum(QUARTERS)}),
    annotations: {readOnlyHint: true},
  },
  async ({ticker, quarter}) => {
    const seed = QUARTERS.indexOf(quarter) + 1
    const rows = Array.from({length: 2000}, (_, i) => ({
      id: `${ticker}-${quarter}-${i}`,
      account: ['sales', 'refunds', 'cogs', 'payroll', 'rent'][(i * seed) % 5],
      amount: Math.round(((i * 7919 * seed) % 10_000) - 2500) / 100,
    }))
    return {content: [{type: 'text', text: JSON.stringify(rows)}]}
  },
)

await server.connect(new StdioServerTransport())
