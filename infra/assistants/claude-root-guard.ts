/**
 * Claude Code refuses the permission mode Cairn runs it in (`bypassPermissions`) as root, outside
 * Windows, unless the environment declares a sandbox (`IS_SANDBOX=1`, or its bubblewrap sandbox):
 * a first-time user in a container or a VM would see every turn fail (AMENDMENTS A.10). Cairn
 * never sets the declaration itself; it passes on the operator's.
 */
export const CLAUDE_ROOT_REFUSAL = /cannot be used with root\/sudo privileges/;

export const CLAUDE_AS_ROOT_FIX =
  'run Cairn as a normal user, or, in a container or VM you can throw away, set IS_SANDBOX=1 in ' +
  'Cairn\'s environment: Claude Code then accepts root (docs/operations.md, "Running as root")';

/** Whether Claude Code would refuse to run for this process with this environment. */
export function claudeRefusesRoot(
  env: Record<string, string | undefined>,
  uid: number | undefined = process.getuid?.(),
  platform: NodeJS.Platform = process.platform,
): boolean {
  return platform !== 'win32' && uid === 0 && env.IS_SANDBOX !== '1' && env.CLAUDE_CODE_BUBBLEWRAP !== '1';
}
