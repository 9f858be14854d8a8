/** MCP log levels are the syslog severities (RFC 5424), the same in every protocol version. */

export const LOG_LEVELS = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const isLogLevel = (v: unknown): v is LogLevel =>
  typeof v === "string" && LOG_LEVELS.includes(v as LogLevel);

/** Whether a message at `level` passes a session whose minimum is `minimum`. */
export const passes = (level: LogLevel, minimum: LogLevel): boolean =>
  LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(minimum);
