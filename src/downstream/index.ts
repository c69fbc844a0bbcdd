export {listedProperties} from './calls/arguments.js'
export {followRefs} from './calls/schema-ref.js'
export {SchemaValidator} from './calls/validation.js'

export type {ConnectFailure} from './connection/failure-cause.js'
export {GENERIC_FIX} from './connection/failure.js'
export {Redactor} from './connection/redactor.js'
export type {UpstreamClient} from './connection/upstream.js'

export {deferredRegistry} from './deferred-registry.js'
/**
 * The way into downstream/ (the servers ptc-mcp connects to, their tools, the calls to them) from
 * the rest of src/: nothing outside this folder imports past this file (eslint.config.js).
 * The registry, and with it every transport and the MCP client, loads on first use
 * (`loadToolRegistry`): serve answers its client before any server connects.
 */
export type {DownstreamServerStatus} from './registry-options.js'
export type {ToolRegistry} from './registry.js'
export {defaultCatalogueDir, readCatalogue, writeCatalogueEntry} from './tools/catalogue-cache.js'

export type {CatalogueEntry} from './tools/catalogue.js'
export {patternMatcher} from './tools/filter.js'
export {
  type BriefToolDescription,
  describeTool,
  InspectError,
  inspectTools,
  type ToolDescription,
  withApprovalNote,
} from './tools/inspect.js'
export {lookupTool} from './tools/tool-lookup.js'
export {callableTools, UnknownServerError} from './tools/tool-search.js'
export {
  type CallToolOptions,
  JsonText,
  type ServerStatus,
  startingText,
  TOOL_ERROR_KINDS,
  ToolError,
  type ToolErrorKind,
  type ToolHost,
  type ToolInfo,
  type UnavailableServer,
} from './types.js'

/** The registry's module: one supervisor per server, their tools, the calls (loaded on first use). */
export async function loadToolRegistry(): Promise<typeof import('./registry.js')> {
  return import('./registry.js')
}
