#!/usr/bin/env node
// Writes oclif.manifest.json from the compiled commands, as `oclif manifest` does (the same
// @oclif/core Plugin loader), without the oclif CLI package: it brings an AWS SDK and prompt
// libraries for publishing, which would be most of a fresh `npm ci`.
import {Plugin} from '@oclif/core'
import {readFileSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
if (!Array.isArray(pjson.files)) throw new Error('package.json needs a "files" array (npm pack reads it)')
const plugin = new Plugin({
  errorOnManifestCreate: true,
  ignoreManifest: true,
  respectNoCacheDefault: true,
  root,
  type: 'core',
})
await plugin.load()
const file = join(root, 'oclif.manifest.json')
writeFileSync(file, JSON.stringify(plugin.manifest, null, 2))
console.log(`wrote manifest to ${file}`)
