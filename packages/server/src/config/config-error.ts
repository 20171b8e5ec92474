/** Thrown when a setting is invalid; the message names the variable and what to do. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** The ConfigError for one variable, in the shape every start-up refusal takes. */
export function invalidSetting(variable: string, message: string): ConfigError {
  return new ConfigError(
    `Invalid Cairn settings:\n  ${variable}: ${message}\nFix the variable(s) above and start again.`,
  );
}
