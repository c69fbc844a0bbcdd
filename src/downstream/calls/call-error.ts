import {ProtocolError, SdkError, SdkErrorCode} from '@modelcontextprotocol/client'

import {signInMessage} from '../../oauth/errors.js'
import {formatSeconds} from '../../shared/seconds.js'
import {describeError} from '../connection/error-text.js'
import {oversizedMessageBytes} from '../transport/oversized-answer.js'
import {ResultTooLargeError, ToolError} from '../types.js'

export interface CallOptions {
  signal?: AbortSignal
  timeoutMs: number
}

/** A failed tool call: the error for the program, and what the failure says about the connection. */
export interface CallFailure {
  error: ToolError
  /** Only a sign-in can help: the connection is as good as lost, with this reason. */
  needsSignIn?: string
  /** A failure that may or may not mean the server is gone (a failed HTTP request, a network error). */
  mayBeLost?: boolean
}

/**
 * What a failed call becomes: a timeout, a cancellation, a protocol error, bad data, a result too
 * large to receive, or a lost connection. `lostReason` is why the connection went away, if it has.
 */
export function callFailure(
  error: unknown,
  server: string,
  options: CallOptions,
  lostReason: null | string,
): CallFailure {
  if (error instanceof ToolError) return {error}
  const signIn = signInMessage(error)
  if (signIn !== undefined)
    return {
      error: new ToolError(`server '${server}' ${signIn}`, {cause: error, kind: 'unavailable'}),
      needsSignIn: signIn,
    }
  if (options.signal?.aborted) return {error: new ToolError('tool call cancelled', {cause: error})}
  if (isTimeout(error)) {
    const message =
      `tool call timed out after ${formatSeconds(options.timeoutMs)} (execution.tool_call_timeout_seconds): ` +
      'ask for less per call, or make fewer calls at once'
    return {error: new ToolError(message, {cause: error, kind: 'timeout'})}
  }
  const oversized = oversizedMessageBytes(error)
  if (oversized !== undefined) return {error: new ResultTooLargeError(oversized, {cause: error})}
  if (error instanceof ProtocolError) {
    const message = `server '${server}' answered with an error: ${error.message}`
    return {error: new ToolError(message, {cause: error, kind: 'protocol'})}
  }
  if (error instanceof SdkError && error.code === SdkErrorCode.InvalidResult) {
    const message = `server '${server}' sent an invalid result: ${error.message}`
    return {error: new ToolError(message, {cause: error, kind: 'protocol'})}
  }
  if (
    error instanceof SdkError &&
    (error.code === SdkErrorCode.ConnectionClosed || error.code === SdkErrorCode.NotConnected)
  ) {
    const reason = lostReason ? ` (${lostReason})` : ''
    const message = `lost the connection to server '${server}' during the call${reason}`
    return {error: new ToolError(message, {cause: error, kind: 'unavailable'})}
  }
  const message = `call to server '${server}' failed: ${describeError(error)}`
  return {error: new ToolError(message, {cause: error, kind: 'unavailable'}), mayBeLost: true}
}

export function isTimeout(error: unknown): boolean {
  return error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout
}
