import {execFileSync} from 'node:child_process'
import {fileURLToPath} from 'node:url'
import {describe, expect, expectTypeOf, test} from 'vitest'

import {HELPER_NAMES} from '../calls/program-helpers.js'
import {CHANNEL_MESSAGES, type ChannelFields, type ChannelMessageType} from './channel-messages.js'
import {
  type ChildMessage,
  childMessageFrom,
  type ResultMessage,
  type RunMessage,
  type SessionDataMessage,
  type SessionFileMessage,
  type StartMessage,
  type TextResultHeader,
} from './protocol.js'

const PYTHON = process.env.PTC_MCP_TEST_PYTHON ?? 'python3'
const RUNNER_DIR = fileURLToPath(new URL('../runner', import.meta.url))
const SCANNER = fileURLToPath(new URL('../../../test/helpers/channel_fields.py', import.meta.url))

type ChildType = {
  [T in ChannelMessageType]: (typeof CHANNEL_MESSAGES)[T]['from'] extends 'child' ? T : never
}[ChannelMessageType]
type ParentType = Exclude<ChannelMessageType, ChildType>
/** The fields of a message type (or of every member of a union), besides `type`. */
type WireFields<T> = T extends unknown ? Exclude<keyof T, 'type'> : never

const types = Object.keys(CHANNEL_MESSAGES) as ChannelMessageType[]
const childTypes = types.filter((type) => CHANNEL_MESSAGES[type].from === 'child')
const parentTypes = types.filter((type) => CHANNEL_MESSAGES[type].from === 'parent')
const fieldsOf = (type: ChannelMessageType) => Object.keys(CHANNEL_MESSAGES[type].fields).sort()

/** A valid message of each type the child sends, with every field of the description. */
const CHILD_SAMPLES: {[T in ChildType]: Record<ChannelFields<T>, unknown> & {type: T}} = {
  call: {type: 'call', tool: 'mcp__a__b', args: {x: 1}, id: 1},
  cancel: {type: 'cancel', id: 3},
  done: {type: 'done', ok: true, error: null, has_result: true, result: [1], steps: [['woke', 1]]},
  file: {type: 'file', name: 'charts/q1.csv', area: 'out'},
  file_data: {type: 'file_data', data: 'aGk='},
  file_skipped: {type: 'file_skipped', name: 'evil', reason: 'link', area: 'session'},
  helper: {type: 'helper', name: 'server_status', args: {}, id: 2},
  plan: {type: 'plan', calls: [{tool: 'mcp__a__b', times: 'many', samples: ['mcp__a__b(x=1)']}]},
  ready: {type: 'ready', confine: {tier: 't'}},
  show: {type: 'show', mime_type: 'image/png', data: 'iVBORw0KGgo='},
  startup_failed: {type: 'startup_failed', stage: 'load', error: 'ImportError: x'},
}

interface PythonSide {
  sends: Record<string, string[]>
  reads: Record<string, string[]>
  asks: string[]
}

function pythonSide(): PythonSide {
  const output = execFileSync(PYTHON, ['-I', '-S', '-B', SCANNER, RUNNER_DIR, ...parentTypes], {
    encoding: 'utf8',
  })
  return JSON.parse(output) as PythonSide
}

describe('the channel protocol, written down once (channel-messages.ts)', () => {
  test("protocol.ts's types of the parent's messages have the fields of the description", () => {
    expectTypeOf<WireFields<StartMessage>>().toEqualTypeOf<ChannelFields<'start'>>()
    expectTypeOf<WireFields<RunMessage>>().toEqualTypeOf<ChannelFields<'run'>>()
    expectTypeOf<WireFields<ResultMessage | TextResultHeader>>().toEqualTypeOf<ChannelFields<'result'>>()
    expectTypeOf<WireFields<SessionFileMessage>>().toEqualTypeOf<ChannelFields<'session_file'>>()
    expectTypeOf<WireFields<SessionDataMessage>>().toEqualTypeOf<ChannelFields<'session_data'>>()
    expectTypeOf<ParentType>().toEqualTypeOf<'result' | 'run' | 'session_data' | 'session_file' | 'start'>()
    expectTypeOf<ChildMessage['type']>().toEqualTypeOf<ChildType>()
  })

  test.each(childTypes)("protocol.ts's parser reads the fields of the description: %s", (type) => {
    const read = new Set<string | symbol>()
    const sample: Record<string, unknown> = CHILD_SAMPLES[type as ChildType]
    const message = new Proxy(sample, {
      get(target, key, receiver) {
        read.add(key)
        return Reflect.get(target, key, receiver) as unknown
      },
    })
    expect(childMessageFrom(message, 100).type).toBe(type)
    read.delete('type')
    expect([...read].map(String).sort()).toEqual(fieldsOf(type))
  })

  test('the runner sends the messages of the description, with their fields', () => {
    const {sends} = pythonSide()
    expect(Object.keys(sends).sort()).toEqual([...childTypes].sort())
    for (const type of childTypes) expect(sends[type], type).toEqual(fieldsOf(type))
  })

  test("the runner reads every field of the parent's messages, and no other", () => {
    const {reads} = pythonSide()
    expect(Object.keys(reads).sort()).toEqual([...parentTypes].sort())
    for (const type of parentTypes) expect(reads[type], type).toEqual(fieldsOf(type))
  })

  test('the helpers the runner asks the parent for are the ones the parent answers', () => {
    expect(pythonSide().asks).toEqual([...HELPER_NAMES].sort())
  })
})
