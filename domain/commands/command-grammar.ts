/**
 * The one command grammar of every door (AMENDMENTS A.6): the web page's chat box, the terminal's
 * interactive chat, Telegram, Discord, Slack and code-host comments all read `/status`,
 * `/workflow run review-pr check the tests` the same way. This module only parses; what a
 * command does is services/commands/.
 */
export type ChatCommand =
  | { name: 'help' }
  | { name: 'new' }
  | { name: 'codebase'; target?: string }
  | { name: 'workflow list' }
  | { name: 'workflow run'; workflow: string; message: string }
  | { name: 'status' }
  | { name: 'cancel' }
  | { name: 'approve'; runId?: string; comment?: string }
  | { name: 'reject'; runId?: string; reason: string };

export type CommandName = ChatCommand['name'];

export type ParsedCommand =
  | { kind: 'command'; command: ChatCommand }
  /** Text that starts like a command but is not one: answered with the help, never sent on. */
  | { kind: 'unknown'; word: string }
  /** A known command used wrongly: answered with its usage. */
  | { kind: 'invalid'; name: CommandName; problem: string }
  /** Not a command at all: a message for the assistant. */
  | { kind: 'message' };

export interface CommandHelp {
  name: CommandName;
  usage: string;
  summary: string;
}

/** In the order the help lists them. */
export const COMMANDS: readonly CommandHelp[] = [
  { name: 'help', usage: '/help', summary: 'this list' },
  { name: 'status', usage: '/status', summary: "this conversation's turn, queue place and runs" },
  { name: 'cancel', usage: '/cancel', summary: 'stop the running turn and the runs started here' },
  { name: 'new', usage: '/new', summary: 'start a fresh conversation (same codebase)' },
  { name: 'codebase', usage: '/codebase [name | url | path]', summary: 'show, choose or add the codebase' },
  { name: 'workflow list', usage: '/workflow list', summary: 'the workflows you can run' },
  { name: 'workflow run', usage: '/workflow run <name> [message]', summary: 'start a workflow run' },
  { name: 'approve', usage: '/approve [run id] [comment]', summary: 'approve the gate a run waits at' },
  { name: 'reject', usage: '/reject [run id] <reason>', summary: 'reject it, with the reason' },
];

const MAX_COMMAND_CHARS = 8_000;
const WORKFLOW_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** Run ids are UUIDs; a comment that happens to start with one names that run. */
const RUN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The first word and the rest, with the rest's own spacing and line breaks kept. */
function splitWord(text: string): [string, string] {
  const match = /^(\S+)\s*([\s\S]*)$/.exec(text);
  return match ? [match[1]!, match[2]!.trim()] : ['', ''];
}

/** `/status@CairnBot` (Telegram's form in groups) reads as `/status`. */
function commandWord(word: string): string {
  return word
    .slice(1)
    .replace(/@[\w.-]+$/, '')
    .toLowerCase();
}

function optionalRunId(rest: string): { runId?: string; text: string } {
  const [first, after] = splitWord(rest);
  return RUN_ID.test(first) ? { runId: first.toLowerCase(), text: after } : { text: rest };
}

function invalid(name: CommandName, problem: string): ParsedCommand {
  return { kind: 'invalid', name, problem };
}

function parseWorkflow(rest: string): ParsedCommand {
  const [sub, args] = splitWord(rest);
  switch (sub.toLowerCase()) {
    case 'list':
      return args === ''
        ? { kind: 'command', command: { name: 'workflow list' } }
        : invalid('workflow list', 'takes nothing after it');
    case 'run': {
      const [workflow, message] = splitWord(args);
      if (workflow === '') return invalid('workflow run', 'needs the name of a workflow');
      if (!WORKFLOW_NAME.test(workflow))
        return invalid('workflow run', `"${workflow}" is not a workflow name`);
      return { kind: 'command', command: { name: 'workflow run', workflow, message } };
    }
    default:
      return invalid(
        'workflow run',
        sub === '' ? 'needs `list` or `run`' : `has no "${sub}": use \`list\` or \`run\``,
      );
  }
}

/**
 * Reads one message. A message is a command when its first word starts with `/`; a path such as
 * `/usr/lib is missing` is a message, since only the grammar's own words are commands and an
 * unknown word is answered with the help only when it looks like one (letters alone).
 */
export function parseCommand(input: string): ParsedCommand {
  const text = input.trim();
  if (!text.startsWith('/') || text.length > MAX_COMMAND_CHARS) return { kind: 'message' };
  const [word, rest] = splitWord(text);
  const name = commandWord(word);
  switch (name) {
    case 'help':
    case 'status':
    case 'cancel':
    case 'new':
      return rest === '' ? { kind: 'command', command: { name } } : invalid(name, 'takes nothing after it');
    case 'codebase':
      return { kind: 'command', command: rest === '' ? { name } : { name, target: rest } };
    case 'workflow':
      return parseWorkflow(rest);
    case 'approve': {
      const { runId, text: comment } = optionalRunId(rest);
      return { kind: 'command', command: { name, ...(runId && { runId }), ...(comment && { comment }) } };
    }
    case 'reject': {
      const { runId, text: reason } = optionalRunId(rest);
      if (reason === '') return invalid('reject', 'needs the reason');
      return { kind: 'command', command: { name, ...(runId && { runId }), reason } };
    }
    default:
      return /^[a-z][a-z-]*$/.test(name) ? { kind: 'unknown', word: `/${name}` } : { kind: 'message' };
  }
}

/**
 * Whether answering it reads the codebase's files (its workflows, commands, config or code): a
 * message for the assistant and the workflow commands do; the others read only Cairn's own state.
 */
export function readsCodebaseFiles(parsed: ParsedCommand): boolean {
  return (
    parsed.kind === 'message' || (parsed.kind === 'command' && parsed.command.name.startsWith('workflow'))
  );
}

export function usageOf(name: CommandName): string {
  return COMMANDS.find((command) => command.name === name)!.usage;
}

/** The help, as markdown every door can render. */
export function helpText(): string {
  return ['Commands:', ...COMMANDS.map((command) => `\`${command.usage}\` — ${command.summary}`)].join('\n');
}
