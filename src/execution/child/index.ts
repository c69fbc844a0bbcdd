/**
 * The parent side of a program's child: `ProgramChild` (the lifecycle, program-child.ts) over its
 * process (a `ChildSpawner`, spawner.ts; process.ts spawns a fresh one), its channel (channel.ts),
 * its output pipes (output.ts) and the program's run (run.ts).
 */
export {ANSWER_STALL_MS} from './channel.js'
export {childEnvironment, describeExit, RUNNER_PATH, spawnThroughBackend} from './process.js'
export {ProgramChild} from './program-child.js'
export type {ChildExit, ChildSpawner, SpawnedChild, SpawnRequest} from './spawner.js'
export type {ChildEnd, ChildOptions, ChildRequestHandlers, ChildRunOptions, ChildRunResult} from './types.js'
