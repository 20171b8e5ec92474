import type { CallToolResult } from '@modelcontextprotocol/server';
import { CairnError } from '../errors/cairn-error.js';
import { isDatabaseUnavailable, UNAVAILABLE_MESSAGE } from '../errors/database-unavailable.js';
import { busyMessage, busyReason } from '../errors/server-busy.js';
import type { Logger } from '../log/logger.js';

/** Maps an error to a tool result the model can read: the code and what to do next; internals stay in the log. */
export function toolErrorResult(error: unknown, log: Logger, tool?: string): CallToolResult {
  if (error instanceof CairnError) {
    return { isError: true, content: [{ type: 'text', text: `${error.code}: ${error.message}` }] };
  }
  const busy = busyReason(error);
  if (busy)
    return {
      isError: true,
      content: [{ type: 'text', text: `busy: ${busyMessage(busy.retryAfterSeconds, busy.why)}` }],
    };
  // Logged once per outage by the store, not once per call.
  if (isDatabaseUnavailable(error))
    return { isError: true, content: [{ type: 'text', text: `unavailable: ${UNAVAILABLE_MESSAGE}` }] };
  log.error('tool failed', { tool, error: error instanceof Error ? error.message : String(error) });
  return {
    isError: true,
    content: [
      {
        type: 'text',
        text: 'internal_error: Cairn could not complete this call. Try again; if it keeps failing, tell the operator (the server log has the details).',
      },
    ],
  };
}
