// A Claude Code Elicitation hook for tests: `node elicitation-hook.mjs ANSWERS LOG`. Appends the
// request it received (stdin: mcp_server_name, message, requested_schema) to LOG as one JSON line,
// then accepts, answering each property of the requested form that ANSWERS (a JSON object) names.
import {appendFileSync, readFileSync} from 'node:fs'

const [answersPath, logPath] = process.argv.slice(2)
const request = JSON.parse(readFileSync(0, 'utf8'))
appendFileSync(logPath, `${JSON.stringify(request)}\n`)
const answers = JSON.parse(readFileSync(answersPath, 'utf8'))
const asked = Object.keys(request.requested_schema?.properties ?? {})
const content = Object.fromEntries(asked.filter((key) => key in answers).map((key) => [key, answers[key]]))
process.stdout.write(
  JSON.stringify({hookSpecificOutput: {hookEventName: 'Elicitation', action: 'accept', content}}),
)
