import {spawn} from 'node:child_process'
import {delimiter} from 'node:path'

/**
 * The command that opens a URL: `$BROWSER` when set (its first entry, as Python's `webbrowser`
 * reads it: entries separated like PATH, `%s` standing for the URL, else the URL appended), else
 * the platform's opener. The URL is always one argument of its own, never parsed by a shell.
 */
export function browserCommand(
  url: string,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): {command: string; args: string[]} {
  const configured = env.BROWSER?.split(delimiter).find((entry) => entry.trim() !== '')
  if (configured) {
    const [command = '', ...args] = configured.trim().split(/\s+/)
    const substituted = args.map((arg) => (arg === '%s' ? url : arg))
    return {command, args: args.includes('%s') ? substituted : [...args, url]}
  }
  if (platform === 'darwin') return {command: 'open', args: [url]}
  if (platform === 'win32') return {command: 'rundll32', args: ['url.dll,FileProtocolHandler', url]}
  return {command: 'xdg-open', args: [url]}
}

/**
 * Opens the URL in a browser, without waiting for it to close. Resolves with a reason when no
 * browser could be started (the caller has printed the URL anyway), else with undefined.
 */
export function openBrowser(url: string, env: NodeJS.ProcessEnv = process.env): Promise<string | void> {
  const {command, args} = browserCommand(url, env)
  return new Promise((resolve) => {
    let child
    try {
      child = spawn(command, args, {stdio: 'ignore', detached: process.platform !== 'win32'})
    } catch (error) {
      resolve(`could not start ${command}: ${error instanceof Error ? error.message : String(error)}`)
      return
    }
    child.once('error', (error) => resolve(`could not start ${command}: ${error.message}`))
    child.once('spawn', () => {
      child.unref()
      resolve()
    })
  })
}
