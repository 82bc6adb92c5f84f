/**
 * The `when` language, part two: a recursive-descent parser, the references a condition makes,
 * and evaluation against node outputs.
 *
 *   condition  := or
 *   or         := and (("||" | "or") and)*
 *   and        := unary (("&&" | "and") unary)*
 *   unary      := ("!" | "not") unary | comparison
 *   comparison := operand (compare-operator operand)?
 *   operand    := "$<id>.output[.field...]" | string | number | true | false | null | "(" or ")"
 */
import {
  tokenize,
  ConditionSyntaxException,
  type Condition,
  type ConditionSyntaxError,
  type Token,
} from './condition-tokens.js';
import { compareValues, containsValue, isTruthy, resolveOutput } from './output-values.js';

export { type Condition, type ConditionSyntaxError, type CompareOperator } from './condition-tokens.js';

export const MAX_CONDITION_LENGTH = 1000;
export const MAX_CONDITION_DEPTH = 32;

export type ConditionParseResult =
  { ok: true; condition: Condition } | { ok: false; error: ConditionSyntaxError };

class Parser {
  private index = 0;
  private depth = 0;

  constructor(private readonly tokens: Token[]) {}

  parse(): Condition {
    if (this.peek().type === 'end') throw new ConditionSyntaxException('empty condition', 0);
    const condition = this.or();
    const next = this.peek();
    if (next.type !== 'end') {
      const hint = next.type === 'compare' ? 'comparisons cannot be chained: join them with &&' : undefined;
      throw new ConditionSyntaxException(`unexpected ${describe(next)}`, next.offset, hint);
    }
    return condition;
  }

  private peek(): Token {
    return this.tokens[this.index]!;
  }

  private take(): Token {
    const token = this.tokens[this.index]!;
    if (token.type !== 'end') this.index += 1;
    return token;
  }

  private nested<T>(at: number, parse: () => T): T {
    this.depth += 1;
    if (this.depth > MAX_CONDITION_DEPTH) {
      throw new ConditionSyntaxException(`nested more than ${MAX_CONDITION_DEPTH} levels deep`, at);
    }
    const result = parse();
    this.depth -= 1;
    return result;
  }

  private or(): Condition {
    let left = this.and();
    while (this.peek().type === 'or') {
      const { offset } = this.take();
      left = { type: 'or', left, right: this.and(), offset };
    }
    return left;
  }

  private and(): Condition {
    let left = this.unary();
    while (this.peek().type === 'and') {
      const { offset } = this.take();
      left = { type: 'and', left, right: this.unary(), offset };
    }
    return left;
  }

  private unary(): Condition {
    const token = this.peek();
    if (token.type !== 'not') return this.comparison();
    this.take();
    return this.nested(token.offset, () => ({ type: 'not', operand: this.unary(), offset: token.offset }));
  }

  private comparison(): Condition {
    const left = this.operand();
    const token = this.peek();
    if (token.type !== 'compare') return left;
    this.take();
    return { type: 'compare', operator: token.operator, left, right: this.operand(), offset: token.offset };
  }

  private operand(): Condition {
    const token = this.take();
    switch (token.type) {
      case 'output':
        return { type: 'output', nodeId: token.nodeId, path: token.path, offset: token.offset };
      case 'literal':
        return { type: 'literal', value: token.value, offset: token.offset };
      case '(': {
        const inner = this.nested(token.offset, () => this.or());
        const close = this.take();
        if (close.type !== ')') {
          throw new ConditionSyntaxException(
            `expected ")", found ${describe(close)}`,
            close.offset,
            `it would close the "(" at character ${token.offset + 1}`,
          );
        }
        return inner;
      }
      default:
        throw new ConditionSyntaxException(`expected a value, found ${describe(token)}`, token.offset);
    }
  }
}

function describe(token: Token): string {
  return token.type === 'end' ? 'the end of the condition' : JSON.stringify(token.text);
}

/** Parses a `when` condition. Never throws. */
export function parseCondition(text: string): ConditionParseResult {
  if (text.length > MAX_CONDITION_LENGTH) {
    return {
      ok: false,
      error: { message: `longer than ${MAX_CONDITION_LENGTH} characters`, offset: MAX_CONDITION_LENGTH },
    };
  }
  try {
    return { ok: true, condition: new Parser(tokenize(text)).parse() };
  } catch (error) {
    if (error instanceof ConditionSyntaxException) {
      return { ok: false, error: { message: error.message, offset: error.offset } };
    }
    return { ok: false, error: { message: 'could not be parsed', offset: 0 } };
  }
}

export interface OutputReference {
  nodeId: string;
  /** Fields after `.output`; empty for the whole output. */
  path: string[];
}

/** Every `$<id>.output...` in a condition, in the order written. */
export function conditionReferences(condition: Condition): OutputReference[] {
  switch (condition.type) {
    case 'output':
      return [{ nodeId: condition.nodeId, path: [...condition.path] }];
    case 'literal':
      return [];
    case 'not':
      return conditionReferences(condition.operand);
    default:
      return [...conditionReferences(condition.left), ...conditionReferences(condition.right)];
  }
}

function valueOf(condition: Condition, outputs: Record<string, unknown>): unknown {
  switch (condition.type) {
    case 'output':
      return resolveOutput(outputs, condition.nodeId, condition.path);
    case 'literal':
      return condition.value;
    case 'not':
      return !isTruthy(valueOf(condition.operand, outputs));
    case 'and':
      return isTruthy(valueOf(condition.left, outputs)) && isTruthy(valueOf(condition.right, outputs));
    case 'or':
      return isTruthy(valueOf(condition.left, outputs)) || isTruthy(valueOf(condition.right, outputs));
    case 'compare': {
      const left = valueOf(condition.left, outputs);
      const right = valueOf(condition.right, outputs);
      if (condition.operator === 'contains') return containsValue(left, right);
      const order = compareValues(left, right);
      switch (condition.operator) {
        case '==':
          return order === 0;
        case '!=':
          return order !== 0;
        case '<':
          return order < 0;
        case '<=':
          return order <= 0;
        case '>':
          return order > 0;
        case '>=':
          return order >= 0;
      }
    }
  }
}

/** Whether the condition holds, given the outputs of ended nodes by id. */
export function evaluateCondition(condition: Condition, outputs: Record<string, unknown>): boolean {
  return isTruthy(valueOf(condition, outputs));
}
