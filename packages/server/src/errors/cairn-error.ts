/** Stable error codes shared by every edge (HTTP, MCP, CLI). */
export const ErrorCodes = {
  invalid_input: 'The input is not valid',
  not_found: 'Not found',
  forbidden: 'Not allowed',
  conflict: 'Conflict',
  version_conflict: 'The entry changed since you read it',
  duplicate: 'The same knowledge is already saved',
  unauthenticated: 'Authentication required',
} as const;

/** One of the stable error codes. */
export type ErrorCode = keyof typeof ErrorCodes;

/** A domain error a user can see: a stable code and a message that says what to do next. */
export class CairnError extends Error {
  override name = 'CairnError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** HTTP status for each code, used by the JSON API edge. */
export const httpStatusFor: Record<ErrorCode, number> = {
  invalid_input: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  version_conflict: 409,
  duplicate: 409,
};
