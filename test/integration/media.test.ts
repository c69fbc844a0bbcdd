/**
 * Non-text content of tool results reaches programs as `Media` (SPEC §6, §14). Real
 * server-everything (`@modelcontextprotocol/server-everything`) from npm, a real ToolRegistry and real Python children.
 */
import {afterAll, beforeAll, describe, expect, test} from 'vitest'

import {ToolRegistry} from '../../src/downstream/registry.js'
import {ProgramEngine} from '../../src/execution/engine/engine.js'
import {silentLogger} from '../../src/shared/log.js'
import {closeTestEngines, createTestEngine} from '../helpers/engine.js'
import {testDependency} from '../helpers/test-deps.js'

const EVERYTHING = testDependency('@modelcontextprotocol/server-everything/dist/index.js')
const TINY_IMAGE_MODULE = testDependency(
  '@modelcontextprotocol/server-everything/dist/tools/get-tiny-image.js',
)

let registry: ToolRegistry
let engine: ProgramEngine
let png: Buffer

beforeAll(async () => {
  png = Buffer.from(((await import(TINY_IMAGE_MODULE)) as {MCP_TINY_IMAGE: string}).MCP_TINY_IMAGE, 'base64')
  registry = new ToolRegistry(
    {
      servers: [
        {name: 'everything', transport: 'stdio', command: process.execPath, args: [EVERYTHING], env: {}},
      ],
    },
    {logger: silentLogger},
  )
  registry.start()
  await registry.waitForInitialConnections(30_000)
  engine = await createTestEngine(registry, {timeout_seconds: 30})
}, 60_000)

afterAll(async () => {
  await closeTestEngines()
  await registry?.close()
})

describe('Media in programs', () => {
  test("get-tiny-image's PNG is a Media object whose bytes are the PNG", async () => {
    const outcome = await engine.run(
      [
        'import hashlib',
        'r = await mcp__everything__get_tiny_image()',
        'm = r["_media"][0]',
        'print(sorted(r), type(m).__name__, isinstance(m, Media))',
        'print(m.type, m.mime_type, m.size, len(m.bytes()), m.uri, m.text)',
        'print(hashlib.sha256(m.bytes()).hexdigest(), m.data == __import__("base64").b64encode(m.bytes()).decode())',
        'print(r.get("_notes"))',
        'print(r["data"].startswith("Here"))',
        'print(repr(m))',
      ].join('\n'),
    )
    expect(outcome.error).toBeNull()
    const {createHash} = await import('node:crypto')
    const lines = outcome.output.trimEnd().split('\n')
    expect(lines[0]).toBe("['_media', 'data'] Media True")
    expect(lines[1]).toBe(`image image/png ${png.length} ${png.length} None None`)
    expect(lines[2]).toBe(`${createHash('sha256').update(png).digest('hex')} True`)
    // The texts around the image are the string value; no placeholder note for the image.
    expect(lines[3]).toBe('None')
    expect(lines[4]).toBe('True')
    expect(lines[5]).toBe(`<Media image image/png, ${png.length} bytes>`)
  })

  test('an embedded text resource is Media with .text and .uri', async () => {
    const outcome = await engine.run(
      [
        'r = await mcp__everything__get_resource_reference(resourceType="Text", resourceId=1)',
        'm = [x for x in r["_media"]][0]',
        'print(m.type, m.uri, m.text == m.bytes().decode(), m.size == len(m.text.encode()))',
      ].join('\n'),
    )
    expect(outcome.error).toBeNull()
    expect(outcome.output).toMatch(/^resource \S+ True True\n$/)
  })
})

describe('media over max_tool_result_bytes', () => {
  test('the call succeeds: the text is kept and a note stands in for the image', async () => {
    // The PNG's 5,380 bytes of base64 do not fit in 4 KiB; the caption does.
    const tight = await createTestEngine(registry, {timeout_seconds: 30, max_tool_result_bytes: 4096})
    try {
      const outcome = await tight.run(
        [
          'r = await mcp__everything__get_tiny_image()',
          'print(sorted(r))',
          'print(r["data"])',
          'print(r["_notes"])',
        ].join('\n'),
      )
      expect(outcome.error).toBeNull()
      expect(outcome.tool_calls[0]?.ok).toBe(true)
      expect(outcome.output.trimEnd().split('\n')).toEqual([
        "['_notes', 'data']",
        "Here's the image you requested:",
        'The image above is the MCP logo.',
        `['[non-text content omitted: image (image/png), ${Number((png.length / 1024).toFixed(1))} KiB: over the 4 KiB limit (execution.max_tool_result_bytes)]']`,
      ])
    } finally {
      await tight.close()
    }
  })
})

describe('show()', () => {
  test('returns a Media image and image bytes, in order, with their MIME types', async () => {
    const outcome = await engine.run(
      [
        'r = await mcp__everything__get_tiny_image()',
        'show(r["_media"][0])',
        'show(r["_media"][0].bytes())',
        'show(b"GIF89a" + bytes(10))',
        'print("shown")',
      ].join('\n'),
    )
    expect(outcome.error).toBeNull()
    expect(outcome.images.map((image) => image.mimeType)).toEqual(['image/png', 'image/png', 'image/gif'])
    expect(Buffer.from(outcome.images[0]!.data, 'base64').equals(png)).toBe(true)
    expect(outcome.images[1]!.bytes).toBe(png.length)
  })

  test('refuses a fifth image, over 4 MiB in total, non-images and unknown bytes, with clear errors', async () => {
    const outcome = await engine.run(
      [
        'import base64',
        'tiny = b"\\x89PNG\\r\\n\\x1a\\n" + bytes(8)',
        "svg = b\"<svg xmlns='http://www.w3.org/2000/svg' onload='alert(1)'/>\"",
        'for attempt in [lambda: show("text"), lambda: show(b"plain bytes"), lambda: show(tiny, mime_type="text/csv"),',
        '                lambda: show(Media("audio", "audio/wav", 4, base64.b64encode(b"RIFF").decode())),',
        '                lambda: show(Media("image", "image/svg+xml", len(svg), base64.b64encode(svg).decode())),',
        '                lambda: show(b"<html><script>x()</script>", mime_type="image/x-anything"),',
        '                lambda: show(b"<html><script>x()</script>", mime_type="image/png"),',
        '                lambda: show(b"GIF89a" + bytes(10), mime_type="image/png"),',
        '                lambda: show(tiny + bytes(5 * 1024 * 1024))]:',
        '    try:',
        '        attempt()',
        '    except (TypeError, ValueError) as exc:',
        '        print(type(exc).__name__, exc)',
        'for i in range(5):',
        '    try:',
        '        show(tiny)',
        '    except ValueError as exc:',
        '        print(i, exc)',
      ].join('\n'),
    )
    expect(outcome.error).toBeNull()
    expect(outcome.output.trimEnd().split('\n')).toEqual([
      'TypeError show() takes a Media object or bytes, not str',
      'ValueError show() shows PNG, JPEG, GIF and WebP images only (got unknown content)',
      'ValueError show() shows PNG, JPEG, GIF and WebP images only (got text/csv)',
      'ValueError show() shows PNG, JPEG, GIF and WebP images only (got audio/wav)',
      'ValueError show() shows PNG, JPEG, GIF and WebP images only (got image/svg+xml)',
      'ValueError show() shows PNG, JPEG, GIF and WebP images only (got image/x-anything)',
      'ValueError show(): the bytes are no PNG, JPEG, GIF or WebP image, not image/png',
      'ValueError show(): the bytes are a GIF image, not image/png',
      'ValueError show(): images over 4 MiB in total per run; show fewer or smaller images',
      '4 show() can return at most 4 images per run',
    ])
    expect(outcome.images).toHaveLength(4)
  })

  test.each([
    [
      'a fifth image',
      'for _ in range(5): send("image/png", "iVBORw0KGgo=")',
      'show() called more than 4 times',
    ],
    [
      'over 4 MiB in total',
      'send("image/png", big); send("image/png", big)',
      'show() images over 4194304 bytes in total',
    ],
    [
      'data that is not base64',
      'send("image/png", "not base64!")',
      'show() sent image data that is not base64',
    ],
    [
      'a non-image MIME type',
      'send("text/html", "iVBORw0KGgo=")',
      'show() sent without a PNG, JPEG, GIF or WebP MIME type',
    ],
    [
      'an SVG',
      'send("image/svg+xml", base64.b64encode(b"<svg onload=\'x()\'/>").decode())',
      'show() sent without a PNG, JPEG, GIF or WebP MIME type',
    ],
    [
      'HTML labelled as a PNG',
      'send("image/png", base64.b64encode(b"<html><script>x()</script>").decode())',
      'show() sent bytes of no image type labelled image/png',
    ],
    [
      'a GIF labelled as a PNG',
      'send("image/png", base64.b64encode(b"GIF89a" + bytes(10)).decode())',
      'show() sent image/gif labelled image/png',
    ],
  ])('a child that forges show messages (%s) fails its own run', async (_what, line, reason) => {
    const outcome = await engine.run(
      [
        'import base64, json, os',
        'big = base64.b64encode(b"\\x89PNG\\r\\n\\x1a\\n" + bytes(3 * 1024 * 1024)).decode()',
        'def send(mime_type, data):',
        '    message = json.dumps({"type": "show", "mime_type": mime_type, "data": data}).encode() + b"\\n"',
        '    while message:',
        '        message = message[os.write(255, message):]',
        line,
        'import time; time.sleep(20)',
      ].join('\n'),
    )
    expect(outcome.ok).toBe(false)
    expect(outcome.error).toContain(reason)
    expect(outcome.images.length).toBeLessThanOrEqual(4)
  })
})

describe('output over max_output_bytes, kept whole as an artifact', () => {
  test('a program printing 1 MB gets head and tail and the path of its whole output', async () => {
    const {readFileSync} = await import('node:fs')
    const outcome = await engine.run('for i in range(100_000):\n    print(f"{i:09d}")')
    expect(outcome.error).toBeNull()
    const match = /\n\.\.\. \[(\d+) bytes omitted: the whole output is in (\S+)\]\n/.exec(outcome.output)
    expect(match, outcome.output.slice(0, 200)).not.toBeNull()
    // The note opens the output too (SPEC §8); the head follows it.
    const [note, body] = [
      outcome.output.slice(0, outcome.output.indexOf('\n')),
      outcome.output.slice(outcome.output.indexOf('\n') + 1),
    ]
    expect(note).toBe(match![0].trim())
    const [head, tail] = body.split(match![0])
    const whole = readFileSync(match![2]!)
    expect(whole.length).toBe(1_000_000)
    expect(Buffer.byteLength(head!) + 1 + Number(match![1]) + Buffer.byteLength(tail!)).toBe(1_000_000)
    expect(head!.startsWith('000000000\n000000001\n')).toBe(true)
    expect(tail!.endsWith('000099999\n')).toBe(true)
    expect(whole.toString().startsWith(`${head}\n`) && whole.toString().endsWith(tail!)).toBe(true)
    expect(match![2]!.startsWith(process.env.XDG_STATE_HOME!)).toBe(true)
  })
})
