// What a scenario is, and the loop most of them share: repetitions that alternate between the
// gateways, so that each sees the same machine.
import type {Bench} from './bench.js'
import type {Downstream} from './downstreams.js'
import type {Code, Gateway, Program} from './gateway.js'

import {
  addFigure,
  addMissing,
  addRow,
  measuredReference,
  type Reference,
  type Row,
  type Series,
  series,
} from './results.js'

export interface Scenario {
  /** Its name for --only. */
  name: string
  run(bench: Bench): Promise<void>
}

export const TRIVIAL: Program = {kind: 'trivial'}

export interface Rounds {
  reps: number
  /** Runs at the start of every round (a reference measured in alternation with the gateways). */
  beforeRound?: () => Promise<void>
}

/**
 * `reps` rounds; in each, `sample` runs once per gateway, in turn, and returns what it measured
 * (one time or several). A peer that fails is noted and dropped from the rest; ptc-mcp failing
 * fails the run.
 */
export async function interleaved(
  bench: Bench,
  gateways: readonly Gateway[],
  rounds: number | Rounds,
  sample: (gateway: Gateway, round: number) => Promise<number | number[]>,
): Promise<Map<Gateway, number[]>> {
  const {reps, beforeRound} = typeof rounds === 'number' ? {reps: rounds, beforeRound: undefined} : rounds
  const samples = new Map(gateways.map((gateway) => [gateway, [] as number[]]))
  for (let round = 0; round < reps; round++) {
    await beforeRound?.()
    for (const [gateway, times] of samples) {
      try {
        const measured = await sample(gateway, round)
        times.push(...(typeof measured === 'number' ? [measured] : measured))
      } catch (error) {
        bench.leftOut(gateway, error)
        samples.delete(gateway)
      }
    }
  }
  for (const [gateway, times] of samples) if (times.length === 0) samples.delete(gateway)
  return samples
}

/**
 * Runs each gateway's code once, untimed (a warm-up); a peer that fails is noted and left out of
 * the map returned, ptc-mcp failing fails the run.
 */
export async function warmUp(
  bench: Bench,
  codes: ReadonlyMap<Gateway, string>,
): Promise<Map<Gateway, string>> {
  const warmed = await interleaved(bench, [...codes.keys()], 1, async (gateway) => {
    await gateway.run(codes.get(gateway)!)
    return 0
  })
  return new Map([...codes].filter(([gateway]) => warmed.has(gateway)))
}

/** The gateways that can express `program` against `downstream`, with their code. */
export function withCode(
  gateways: readonly Gateway[],
  program: Program,
  downstream: Downstream,
): Array<{gateway: Gateway; code: Code}> {
  const found: Array<{gateway: Gateway; code: Code}> = []
  for (const gateway of gateways) {
    const code = gateway.code(program, downstream)
    if (code) found.push({gateway, code})
  }
  return found
}

/**
 * Footnotes for the gateways that have no figure in `row`: the failure that left a peer out of
 * this scenario, or what its language cannot express.
 */
export function explainMissing(bench: Bench, row: Row, gateways: readonly Gateway[]): void {
  for (const gateway of gateways) {
    const reason = bench.failures.get(gateway) ?? gateway.cannot
    if (reason) addMissing(row, gateway.name, reason)
  }
}

/** Bare interpreter starts taken at the start of every round, beside the programs they compare with. */
export function bareStartsEachRound(
  bench: Bench,
  perRound: number,
): {samples: number[]; beforeRound: () => Promise<void>} {
  const samples: number[] = []
  return {
    samples,
    async beforeRound() {
      samples.push(...bench.bareStart(perRound))
    },
  }
}

/** A row of trivial programs: its key and title, and the gateways that were to be in it. */
export interface RowOf {
  key: string
  scenario: string
  downstream: Downstream
  targetRatio: number
  gateways: readonly Gateway[]
}

/**
 * One row of trivial-program latencies (SPEC §11): each gateway's figure against the bare
 * interpreter starts taken in alternation with it, with the target ratio.
 */
export function addBareStartRow(
  bench: Bench,
  row: RowOf,
  bareStarts: readonly number[],
  measured: Map<Gateway, number[]>,
): void {
  const added = addRow(bench.results, {
    key: `${row.key}/${row.downstream.name}`,
    scenario: row.scenario,
    downstream: row.downstream.name,
    reference: measuredReference('bare start', series('bare python3 -I -S -c pass', 'ms', bareStarts)),
    target: {value: row.targetRatio, comparison: '<=', of: 'ratio'},
  })
  for (const [gateway, times] of measured) addFigure(added, gateway.name, series(added.scenario, 'ms', times))
  explainMissing(bench, added, row.gateways)
}

/** Appends `times` to the gateway's samples in `into`. */
export function record(
  into: Map<Gateway, number[]>,
  gateway: Gateway,
  times: number | readonly number[],
): void {
  into.set(gateway, [...(into.get(gateway) ?? []), ...(typeof times === 'number' ? [times] : times)])
}

/**
 * Two rows (SPEC §11), both measured in alternation: the floor, each gateway's own answer to a
 * tool call that runs no program (ptc-mcp's is the floor proper); then the trivial program, every
 * gateway's figure held against ptc-mcp's floor (or what `row.reference` makes of it), with the
 * target ratio.
 */
export function addFloorRows(
  bench: Bench,
  row: RowOf & {when: string; reference?: (floor: Series) => Reference},
  floors: Map<Gateway, number[]>,
  programs: Map<Gateway, number[]>,
): void {
  const downstream = row.downstream.name
  const floorRow = addRow(bench.results, {
    key: `floor-${row.key}/${downstream}`,
    scenario: `the floor: no program, ${row.when}`,
    downstream,
  })
  let ptcFloor: Series | undefined
  for (const [gateway, times] of floors) {
    const measured = series(floorRow.scenario, 'ms', times)
    addFigure(floorRow, gateway.name, measured)
    if (gateway.name === 'ptc-mcp') ptcFloor = measured
  }
  const programRow = addRow(bench.results, {
    key: `${row.key}/${downstream}`,
    scenario: `${row.scenario}, ${row.when}`,
    downstream,
    reference: ptcFloor && (row.reference ?? ((floor) => measuredReference('floor', floor)))(ptcFloor),
    target: {value: row.targetRatio, comparison: '<=', of: 'ratio'},
  })
  for (const [gateway, times] of programs)
    addFigure(programRow, gateway.name, series(programRow.scenario, 'ms', times))
  explainMissing(bench, floorRow, row.gateways)
  explainMissing(bench, programRow, row.gateways)
}
