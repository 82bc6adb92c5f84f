/**
 * The fields of a `script` node (Archon's form): `runtime`, which says what runs the code, and
 * `deps`, Python packages installed for the run by uv. Inline code only: a bare name, which
 * Archon reads as a script file in `.archon/scripts/`, is refused with a message saying so.
 */
import { describeType, field, has, quote, shorten, type ErrorList, type Mapping } from './checks.js';
import { oneOf } from './validate-fields.js';
import { SCRIPT_RUNTIMES, type ScriptLanguage, type ScriptRuntime } from './types.js';

const LANGUAGES: Record<ScriptRuntime, ScriptLanguage> = {
  sh: 'sh',
  bun: 'javascript',
  node: 'javascript',
  uv: 'python',
  python: 'python',
};

/** Archon's rule: code has a line break or one of these; anything else names a script file. */
const INLINE_MARK = /[\n\s;(){}&|<>$`"']/;
const MAX_DEPS = 50;
/** A PEP 508 requirement as uv takes it: a name, then extras, versions or markers. */
const DEPENDENCY = /^[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9._, -]+\])?\s*([<>=!~;@ ].*)?$/;

export interface ScriptFields {
  runtime: ScriptRuntime;
  language: ScriptLanguage;
  deps: string[];
}

function checkDeps(value: unknown, runtime: ScriptRuntime | undefined, at: string, errors: ErrorList) {
  if (!Array.isArray(value)) {
    errors.add(
      `${at}deps: must be a list of Python packages, such as ["httpx>=0.27"], not ${describeType(value)}`,
    );
    return undefined;
  }
  if (runtime !== undefined && LANGUAGES[runtime] !== 'python') {
    errors.add(`${at}deps: only Python scripts (runtime uv or python) have deps, not runtime ${runtime}`);
  }
  if (value.length > MAX_DEPS) errors.add(`${at}deps: at most ${MAX_DEPS} packages, not ${value.length}`);
  const deps: string[] = [];
  value.forEach((item: unknown, i) => {
    if (typeof item !== 'string')
      errors.add(`${at}deps[${i}]: must be a package name, not ${describeType(item)}`);
    else if (item.length > 200 || !DEPENDENCY.test(item) || item.startsWith('-'))
      errors.add(
        `${at}deps[${i}]: ${quote(shorten(item))} is not a Python requirement such as "httpx>=0.27"`,
      );
    else deps.push(item);
  });
  return deps;
}

/** Checks `runtime` and `deps` of a script node, and that its code is inline. */
export function checkScriptFields(
  raw: Mapping,
  code: string | undefined,
  at: string,
  errors: ErrorList,
): ScriptFields | undefined {
  let runtime: ScriptRuntime | undefined;
  if (!has(raw, 'runtime'))
    errors.add(`${at}runtime: required on a script node (${SCRIPT_RUNTIMES.join(', ')})`);
  else runtime = oneOf(field(raw, 'runtime'), SCRIPT_RUNTIMES, `${at}runtime: `, errors);
  const deps = has(raw, 'deps') ? checkDeps(field(raw, 'deps'), runtime, at, errors) : [];
  if (code !== undefined && runtime !== undefined && runtime !== 'sh' && !INLINE_MARK.test(code.trim())) {
    errors.add(
      `${at}script: ${quote(shorten(code.trim()))} names a script file; Cairn runs inline code only (write the code in the node)`,
    );
    return undefined;
  }
  if (runtime === undefined || deps === undefined) return undefined;
  return { runtime, language: LANGUAGES[runtime], deps };
}

/** `runtime` and `deps` belong to script nodes alone. */
export function checkNotScriptFields(raw: Mapping, at: string, errors: ErrorList): void {
  for (const key of ['runtime', 'deps'])
    if (has(raw, key)) errors.add(`${at}${key}: only script nodes have a ${key}`);
}
