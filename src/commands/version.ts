import {Command} from '@oclif/core'

export interface VersionResult {
  version: string
  node: string
  platform: string
}

/** `ptc-mcp version`: the same line as `--version`, as a command people type. */
export default class Version extends Command {
  static override summary = 'Show the version of ptc-mcp (same as --version).'
  static override enableJsonFlag = true
  static override examples = ['<%= config.bin %> version', '<%= config.bin %> version --json']

  async run(): Promise<VersionResult> {
    await this.parse(Version)
    const result = {
      version: this.config.version,
      node: process.version,
      platform: `${this.config.platform}-${this.config.arch}`,
    }
    if (!this.jsonEnabled()) this.log(this.config.userAgent)
    return result
  }
}
