/**
 * Variables in prompt text, command bodies and approval messages (`$ARGUMENTS`, `$<id>.output`,
 * ...), and the environment bash scripts read the same values from. Text is substituted in one
 * pass: a value that itself contains `$ARGUMENTS` is not expanded again.
 */
import type { WorkflowDefinition } from './types.js';
import { resolveOutput, toText } from './output-values.js';

export const BUILTIN_VARIABLES = [
  'ARGUMENTS',
  'BASE_BRANCH',
  'DOCS_DIR',
  'ARTIFACTS_DIR',
  'RUN_ID',
  'REJECTION_REASON',
  'LOOP_PREV_OUTPUT',
  'ITEM_INDEX',
] as const;
export type BuiltinVariable = (typeof BUILTIN_VARIABLES)[number];

export type VariableReference =
  | { kind: 'builtin'; name: BuiltinVariable; offset: number; text: string }
  | { kind: 'output'; nodeId: string; path: string[]; offset: number; text: string }
  | { kind: 'input'; name: string; offset: number; text: string }
  | { kind: 'item'; path: string[]; offset: number; text: string };

export interface VariableValues {
  /** The message the run was started with. */
  arguments: string;
  /** Undefined when no base branch could be found (then `$BASE_BRANCH` reads as empty text). */
  baseBranch?: string;
  docsDir: string;
  artifactsDir: string;
  runId: string;
  /** In an approval's on_reject prompt: the reason the reviewer gave. */
  rejectionReason?: string;
  /** In a loop's prompt: the previous iteration's output (empty in the first). */
  loopPrevOutput?: string;
  /** In a for_each node: the element this instance runs for (`$ITEM`), and its place from 0. */
  item?: unknown;
  itemIndex?: number;
  /** The run's input values (`$INPUTS.<name>`). */
  inputs?: Record<string, string>;
  /** The bundled scripts folder, given to bash nodes as CAIRN_SCRIPTS_DIR. */
  scriptsDir?: string;
  /** Outputs of ended nodes, by id: text, or the parsed JSON of `output_format` nodes. */
  outputs: Record<string, unknown>;
}

// `$<id>.output[.field...]` first (an id may look like a builtin name), then the builtins as
// whole words. `$plan.outputs` and `$HOME` are ordinary text.
// `$INPUTS.<name>` reads a run input; `$ITEM[.field...]` a for_each node's element.
const REFERENCE =
  /\$(?:([A-Za-z][A-Za-z0-9_-]*)\.output(?![A-Za-z0-9_])((?:\.[A-Za-z0-9_]+)*)|(ARGUMENTS|BASE_BRANCH|DOCS_DIR|ARTIFACTS_DIR|RUN_ID|REJECTION_REASON|LOOP_PREV_OUTPUT|ITEM_INDEX)(?![A-Za-z0-9_])|INPUTS\.([A-Za-z][A-Za-z0-9_]*)(?![A-Za-z0-9_])|ITEM((?:\.[A-Za-z0-9_]+)*)(?![A-Za-z0-9_]))/g;
const BASH_BASE_BRANCH = /\$\{?BASE_BRANCH(?![A-Za-z0-9_])/;
const BASH_OUTPUT_VARIABLE = /\$\{?([A-Z0-9_]+_OUTPUT)(?![A-Za-z0-9_])/g;

function toReference(match: RegExpExecArray): VariableReference {
  if (match[5] !== undefined)
    return { kind: 'item', path: fieldsOf(match[5]), offset: match.index, text: match[0] };
  if (match[4] !== undefined) return { kind: 'input', name: match[4], offset: match.index, text: match[0] };
  if (match[3] !== undefined) {
    return { kind: 'builtin', name: match[3] as BuiltinVariable, offset: match.index, text: match[0] };
  }
  return { kind: 'output', nodeId: match[1]!, path: fieldsOf(match[2]), offset: match.index, text: match[0] };
}

/** `.a.b` → `['a', 'b']`; nothing → `[]`. */
function fieldsOf(written: string | undefined): string[] {
  return written ? written.slice(1).split('.') : [];
}

/** Every variable reference in a text, in order. */
export function findReferences(text: string): VariableReference[] {
  return Array.from(text.matchAll(REFERENCE), toReference);
}

/** The environment variable holding a run input in bash and script nodes: `issue` → `INPUT_ISSUE`. */
export function inputVariableName(name: string): string {
  return `INPUT_${name.toUpperCase()}`;
}

/** The environment variable holding a node's output in bash scripts: `fix-tests` → `FIX_TESTS_OUTPUT`. */
export function outputVariableName(nodeId: string): string {
  return `${nodeId.toUpperCase().replace(/-/g, '_')}_OUTPUT`;
}

/** `<ID>_OUTPUT` variables a bash script mentions (`$X_OUTPUT` or `${X_OUTPUT...}`), in order. */
export function bashOutputVariables(script: string): string[] {
  return Array.from(script.matchAll(BASH_OUTPUT_VARIABLE), (match) => match[1]!);
}

/** Whether a bash script reads `$BASE_BRANCH` (or `${BASE_BRANCH...}`). */
export function bashUsesBaseBranch(script: string): boolean {
  return BASH_BASE_BRANCH.test(script);
}

/** Whether a script reads BASE_BRANCH from its environment (`$BASE_BRANCH`, `process.env.BASE_BRANCH`...). */
export function scriptUsesBaseBranch(script: string): boolean {
  return /(?<![A-Za-z0-9_])BASE_BRANCH(?![A-Za-z0-9_])/.test(script);
}

/** Whether a text (prompt, command body, approval message) uses `$BASE_BRANCH`. */
export function textUsesBaseBranch(text: string): boolean {
  return findReferences(text).some((ref) => ref.kind === 'builtin' && ref.name === 'BASE_BRANCH');
}

/** The command files a definition names (command nodes and loops), each once. */
export function commandsUsed(definition: WorkflowDefinition): string[] {
  const names = definition.nodes.flatMap((node) =>
    node.kind === 'command'
      ? [node.command]
      : node.kind === 'loop' && node.loop.command
        ? [node.loop.command]
        : [],
  );
  return [...new Set(names)];
}

/**
 * Whether a run of this workflow needs a base branch. Command nodes count when their body (from
 * `commandBodies`, by command name) uses it; the bodies live outside the definition.
 */
export function usesBaseBranch(
  definition: WorkflowDefinition,
  commandBodies: Record<string, string> = {},
): boolean {
  return definition.nodes.some((node) => {
    switch (node.kind) {
      case 'prompt':
        return textUsesBaseBranch(node.prompt);
      case 'approval':
        return textUsesBaseBranch(node.approval.message);
      case 'bash':
        return bashUsesBaseBranch(node.bash);
      case 'script':
        return scriptUsesBaseBranch(node.script);
      case 'cancel':
        return textUsesBaseBranch(node.cancel);
      case 'workflow':
        return textUsesBaseBranch(node.message);
      case 'loop': {
        const { prompt, command, untilBash } = node.loop;
        const body =
          command !== undefined && Object.prototype.hasOwnProperty.call(commandBodies, command)
            ? commandBodies[command]
            : undefined;
        return (
          textUsesBaseBranch(prompt ?? body ?? '') ||
          (untilBash !== undefined && bashUsesBaseBranch(untilBash))
        );
      }
      case 'command': {
        const body = Object.prototype.hasOwnProperty.call(commandBodies, node.command)
          ? commandBodies[node.command]
          : undefined;
        return body !== undefined && textUsesBaseBranch(body);
      }
    }
  });
}

function builtinValue(name: BuiltinVariable, values: VariableValues): string {
  switch (name) {
    case 'ARGUMENTS':
      return values.arguments;
    case 'BASE_BRANCH':
      return values.baseBranch ?? '';
    case 'DOCS_DIR':
      return values.docsDir;
    case 'ARTIFACTS_DIR':
      return values.artifactsDir;
    case 'RUN_ID':
      return values.runId;
    case 'REJECTION_REASON':
      return values.rejectionReason ?? '';
    case 'LOOP_PREV_OUTPUT':
      return values.loopPrevOutput ?? '';
    case 'ITEM_INDEX':
      return values.itemIndex === undefined ? '' : String(values.itemIndex);
  }
}

/**
 * The text with its variables replaced. A missing output or field becomes empty text; lists and
 * mappings become JSON text. Unknown `$WORDS` are left as they are.
 */
export function substitute(text: string, values: VariableValues): string {
  return text.replace(REFERENCE, (...args: unknown[]) => {
    const [whole, nodeId, fields, builtin, input, itemFields] = args as [
      string,
      string | undefined,
      string | undefined,
      string | undefined,
      string | undefined,
      string | undefined,
    ];
    if (itemFields !== undefined)
      return toText(resolveOutput({ item: values.item }, 'item', fieldsOf(itemFields)));
    if (input !== undefined) return values.inputs?.[input] ?? '';
    if (builtin !== undefined) return builtinValue(builtin as BuiltinVariable, values);
    if (nodeId === undefined) return whole;
    return toText(resolveOutput(values.outputs, nodeId, fieldsOf(fields)));
  });
}

/**
 * The environment of a bash or script node: the builtin values (BASE_BRANCH only when known),
 * `INPUT_<NAME>` for each run input, and `<ID>_OUTPUT` for each upstream node (JSON text for
 * structured outputs, empty when none).
 */
export function bashEnvironment(
  values: VariableValues,
  upstreamIds: readonly string[],
): Record<string, string> {
  const env: Record<string, string> = {
    ARGUMENTS: values.arguments,
    DOCS_DIR: values.docsDir,
    ARTIFACTS_DIR: values.artifactsDir,
    RUN_ID: values.runId,
  };
  if (values.baseBranch !== undefined) env.BASE_BRANCH = values.baseBranch;
  if (values.scriptsDir !== undefined) env.CAIRN_SCRIPTS_DIR = values.scriptsDir;
  for (const [name, value] of Object.entries(values.inputs ?? {})) env[inputVariableName(name)] = value;
  if (values.itemIndex !== undefined) {
    env.ITEM = toText(values.item);
    env.ITEM_INDEX = String(values.itemIndex);
  }
  for (const id of upstreamIds) env[outputVariableName(id)] = toText(resolveOutput(values.outputs, id, []));
  return env;
}
