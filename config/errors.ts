/** One rejected environment variable or config key; never carries the rejected value. */
export interface ConfigIssue {
  /** Environment variable name, or dotted config key. */
  name: string;
  message: string;
}

/**
 * Invalid configuration that Cairn cannot start with (bad environment values).
 * Config-file problems are not thrown: they are logged and reported by loadConfig.
 */
export class ConfigError extends Error {
  readonly issues: readonly ConfigIssue[];

  constructor(issues: readonly ConfigIssue[]) {
    super(
      issues.length === 1
        ? `Invalid configuration: ${formatIssue(issues[0]!)}`
        : `Invalid configuration:\n${issues.map((issue) => `  - ${formatIssue(issue)}`).join('\n')}`,
    );
    this.name = 'ConfigError';
    this.issues = issues;
  }

  /** Names of the offending variables or keys, for callers that want to point at them. */
  get names(): string[] {
    return this.issues.map((issue) => issue.name);
  }
}

function formatIssue(issue: ConfigIssue): string {
  return `${issue.name} ${issue.message}`;
}
