import type {Launch, LaunchRequest, PythonInfo, SandboxBackend} from './backend.js'

/**
 * `execution.sandbox: none` (explicit opt-in): the same child, environment and limits, without OS
 * isolation. The program can read and write whatever the server's user can.
 */
export const noneBackend: SandboxBackend = {
  name: 'none',
  async check(_python: PythonInfo): Promise<{tier: string}> {
    return {tier: 'none'}
  },
  async launch(request: LaunchRequest): Promise<Launch> {
    return {
      command: request.python.executable,
      args: request.pythonArgs,
      env: request.env,
      confine: null,
      tier: 'none',
    }
  },
}
