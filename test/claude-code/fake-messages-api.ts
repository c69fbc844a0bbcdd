import type {AddressInfo} from 'node:net'

// A scripted model for Claude Code: a fake Anthropic Messages API on 127.0.0.1. `POST /v1/messages`
// answers with the streaming event sequence; the main conversation's turns come from a script
// (tool_use blocks, then a final text), Claude Code's side requests (titles, summaries) get a short
// text. Every request is recorded, so a test reads the tool_result Claude Code passed to the model.
import {createServer, type IncomingMessage, type ServerResponse} from 'node:http'

/** One assistant turn of the main conversation: tool calls, or the final text. */
export type Turn = {toolUse: Array<{id: string; name: string; input: unknown}>} | {text: string}

export interface ContentBlock {
  type: string
  text?: string
  tool_use_id?: string
  content?: string | ContentBlock[]
  is_error?: boolean
  source?: {type: string; media_type?: string; data?: string}
  [key: string]: unknown
}

export interface RecordedRequest {
  model?: string
  system?: string | ContentBlock[]
  tools?: Array<{name: string}>
  messages: Array<{role: string; content: string | ContentBlock[]}>
  stream?: boolean
}

/** The tool_result block Claude Code sent for one tool_use, as the model would read it. */
export interface ToolResult {
  isError: boolean
  /** The text blocks joined (or the content when it is a plain string). */
  text: string
  blocks: ContentBlock[]
}

export interface FakeMessagesApi {
  url: string
  /** Every `POST /v1/messages` body, in arrival order. */
  requests: RecordedRequest[]
  /** The main conversation's requests (those offering tools). */
  mainRequests(): RecordedRequest[]
  /** The tool_result for `toolUseId` in the last request that carries it; undefined if none did. */
  toolResult(toolUseId: string): ToolResult | undefined
  close(): Promise<void>
}

/** A request is the main conversation's when it offers the model tools; side requests offer none. */
const isMain = (request: RecordedRequest): boolean => (request.tools?.length ?? 0) > 0

/** The `ToolSearch` turn Claude Code needs before a deferred MCP tool can be called. */
export const selectTool = (name: string, id = 'toolu_select'): Turn => ({
  toolUse: [{id, name: 'ToolSearch', input: {query: `select:${name}`}}],
})

function sse(response: ServerResponse, events: Array<Record<string, unknown>>): void {
  response.writeHead(200, {'content-type': 'text/event-stream', 'cache-control': 'no-cache'})
  for (const event of events)
    response.write(`event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`)
  response.end()
}

let messageCounter = 0

/** The streaming events of one assistant message made of `turn`. */
export function turnEvents(turn: Turn, model: string): Array<Record<string, unknown>> {
  const id = `msg_fake_${++messageCounter}`
  const usage = {input_tokens: 10, output_tokens: 1}
  const events: Array<Record<string, unknown>> = [
    {
      type: 'message_start',
      message: {id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, usage},
    },
  ]
  if ('text' in turn) {
    events.push(
      {type: 'content_block_start', index: 0, content_block: {type: 'text', text: ''}},
      {type: 'content_block_delta', index: 0, delta: {type: 'text_delta', text: turn.text}},
      {type: 'content_block_stop', index: 0},
    )
  } else {
    for (const [index, use] of turn.toolUse.entries()) {
      events.push(
        {
          type: 'content_block_start',
          index,
          content_block: {type: 'tool_use', id: use.id, name: use.name, input: {}},
        },
        {
          type: 'content_block_delta',
          index,
          delta: {type: 'input_json_delta', partial_json: JSON.stringify(use.input)},
        },
        {type: 'content_block_stop', index},
      )
    }
  }
  events.push(
    {
      type: 'message_delta',
      delta: {stop_reason: 'text' in turn ? 'end_turn' : 'tool_use', stop_sequence: null},
      usage: {output_tokens: 5},
    },
    {type: 'message_stop'},
  )
  return events
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

function blocksOf(content: string | ContentBlock[] | undefined): ContentBlock[] {
  if (content === undefined) return []
  return typeof content === 'string' ? [{type: 'text', text: content}] : content
}

function json(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, {'content-type': 'application/json'})
  response.end(JSON.stringify(value))
}

export interface FakeApiOptions {
  /**
   * Awaited before the model's first turn is answered: the model "reads" the request only once
   * this resolves (Claude Code goes on with its MCP servers meanwhile).
   */
  beforeFirstTurn?: () => Promise<void>
}

/** Answers one request: the script's next turn for the main conversation, a short text otherwise. */
async function answer(
  request: IncomingMessage,
  response: ServerResponse,
  {script, requests, options}: {script: Turn[]; requests: RecordedRequest[]; options: FakeApiOptions},
): Promise<void> {
  const path = (request.url ?? '').split('?')[0]
  const body = await readBody(request)
  if (path === '/v1/messages/count_tokens') return json(response, 200, {input_tokens: 10})
  if (request.method !== 'POST' || path !== '/v1/messages') {
    return json(response, 404, {type: 'error', error: {type: 'not_found_error', message: 'not here'}})
  }
  const parsed = JSON.parse(body) as RecordedRequest
  requests.push(parsed)
  const model = parsed.model ?? 'claude-fake'
  const main = isMain(parsed)
  const assistantTurns = parsed.messages.filter((m) => m.role === 'assistant').length
  if (main && assistantTurns === 0) await options.beforeFirstTurn?.()
  const turn: Turn = main ? (script[assistantTurns] ?? {text: 'Done.'}) : {text: 'Scripted title'}
  if (parsed.stream !== false) return sse(response, turnEvents(turn, model))
  json(response, 200, {
    id: `msg_fake_${++messageCounter}`,
    type: 'message',
    role: 'assistant',
    model,
    content: 'text' in turn ? [{type: 'text', text: turn.text}] : [],
    stop_reason: 'end_turn',
    usage: {input_tokens: 10, output_tokens: 5},
  })
}

/**
 * Starts the fake API. A main-conversation request holding n assistant turns gets `script[n]`
 * (past the end of the script, a final text): a request Claude Code sends again (a retry) gets
 * the same turn.
 */
export async function startFakeMessagesApi(
  script: Turn[],
  options: FakeApiOptions = {},
): Promise<FakeMessagesApi> {
  const requests: RecordedRequest[] = []
  const server = createServer((request, response) => {
    answer(request, response, {script, requests, options}).catch((error: unknown) => {
      response.writeHead(500)
      response.end(String(error))
    })
  })
  await new Promise<void>((resolve) => {
    server.listen(0, '127.0.0.1', resolve)
  })
  const {port} = server.address() as AddressInfo
  const mainRequests = () => requests.filter(isMain)
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    mainRequests,
    toolResult(toolUseId) {
      for (const request of mainRequests().toReversed()) {
        for (const message of request.messages) {
          for (const block of blocksOf(message.content)) {
            if (block.type !== 'tool_result' || block.tool_use_id !== toolUseId) continue
            const blocks = blocksOf(block.content)
            const text = blocks
              .filter((b) => b.type === 'text')
              .map((b) => b.text ?? '')
              .join('\n')
            return {isError: block.is_error === true, text, blocks}
          }
        }
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
