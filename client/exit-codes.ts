/**
 * How `cairn` client commands end (docs/cli.md). A run's outcome comes first, so a CI job can
 * fail on it; the rest follow sysexits.h, so scripts can tell "your input" from "no server".
 */
export const EXIT = {
  ok: 0,
  /** The run failed. */
  runFailed: 1,
  /** The run was cancelled, rejected or abandoned. */
  runStopped: 2,
  /** The run waits at an approval gate (with --no-wait). */
  runWaiting: 3,
  /** Wrong command, option or argument (EX_USAGE). */
  usage: 64,
  /** The server refused the request: a 4xx other than sign-in (EX_DATAERR). */
  refused: 65,
  /** No server answers at the address (EX_UNAVAILABLE). */
  unavailable: 69,
  /** The server failed: a 5xx or an answer that is not the API's (EX_SOFTWARE). */
  serverError: 70,
  /** Sign-in needed or refused: 401 or 403 (EX_NOPERM). */
  notAllowed: 77,
} as const;

/** An error that ends the command with its own exit code and one line for the user. */
export class ClientExit extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
    this.name = 'ClientExit';
  }
}
