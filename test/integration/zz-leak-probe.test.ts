import {test} from 'vitest'
import {mkdtempSync} from 'node:fs'
import {join} from 'node:path'
import {tmpdir} from 'node:os'
test('leaks a scratch dir on purpose', () => { mkdtempSync(join(tmpdir(), 'ptc-run-')) })
