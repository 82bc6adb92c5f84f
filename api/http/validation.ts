import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FieldError } from './problem.js';
import type { JsonSchema } from './route.js';

/** Where a value came from; also the first segment of every error path. */
export type InputLocation = 'params' | 'query' | 'body' | 'response';

/** Validates (and, for params and query, coerces in place) one input; returns the failures. */
export type InputValidator = (data: unknown) => FieldError[];

const COMPONENT_REF = '#/components/schemas/';
// Ajv resolves `#/...` inside the schema that contains it, so shared components get their own ids.
const COMPONENT_ID_BASE = 'https://cairn.dev/schemas/components/';
const MAX_ERRORS = 50;

const BASE_OPTIONS: Options = {
  allErrors: true,
  useDefaults: true,
  removeAdditional: false,
  // Unknown keywords and formats fail at registration; only `required` inside anyOf/oneOf
  // branches (the "url or path" pattern) is allowed to name properties declared by the parent.
  strict: true,
  strictRequired: false,
  allowUnionTypes: true,
};

function createAjv(coerce: boolean, useDefaults = true): Ajv {
  // Path and query values arrive as strings (or arrays of them); bodies are typed JSON.
  const ajv = new Ajv({ ...BASE_OPTIONS, coerceTypes: coerce ? 'array' : false, useDefaults });
  addFormats.default(ajv);
  // OpenAPI's singular `example` is an annotation; accept it so route schemas may carry it.
  ajv.addKeyword({ keyword: 'example', schemaType: [] });
  return ajv;
}

/** Points `#/components/schemas/X` refs at the ids the components are registered under. */
function withComponentIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withComponentIds);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === '$ref' && typeof child === 'string' && child.startsWith(COMPONENT_REF)) {
      out[key] = COMPONENT_ID_BASE + child.slice(COMPONENT_REF.length);
    } else {
      out[key] = withComponentIds(child);
    }
  }
  return out;
}

function withoutDialect(schema: JsonSchema): JsonSchema {
  // Route schemas are read as draft-07 whatever they declare.
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function toFieldError(location: InputLocation, error: ErrorObject): FieldError {
  let path = `/${location}${error.instancePath}`;
  let message = error.message ?? 'is invalid';
  if (error.keyword === 'required') {
    path += `/${escapePointer(String(error.params.missingProperty))}`;
    message = 'is required';
  } else if (error.keyword === 'additionalProperties') {
    path += `/${escapePointer(String(error.params.additionalProperty))}`;
    message = 'is not allowed';
  } else if (error.keyword === 'enum') {
    const allowed = (error.params.allowedValues as unknown[]).map((value) => JSON.stringify(value));
    message = `must be one of ${allowed.join(', ')}`;
  }
  return { path, message };
}

function toValidator(validate: ValidateFunction, location: InputLocation): InputValidator {
  return (data) => {
    if (validate(data)) return [];
    const errors = (validate.errors ?? []).map((error) => toFieldError(location, error));
    // anyOf/oneOf branches can repeat the same failure; report each one once.
    const unique = new Map(errors.map((error) => [`${error.path}\u0000${error.message}`, error]));
    return [...unique.values()].slice(0, MAX_ERRORS);
  };
}

/**
 * Compiles route schemas once, at registration. Three Ajv instances: one coerces (params,
 * query), one never does (bodies), and one only checks (responses: no defaults filled in, the
 * answer is sent as the handler made it). All know the shared component schemas.
 */
export class SchemaCompiler {
  private readonly coercing = createAjv(true);
  private readonly exact = createAjv(false);
  private readonly checking = createAjv(false, false);

  constructor(components: Record<string, JsonSchema> = {}) {
    for (const [name, schema] of Object.entries(components)) {
      const id = COMPONENT_ID_BASE + name;
      const prepared = withComponentIds(withoutDialect(schema)) as JsonSchema;
      const { $id: _ownId, ...body } = prepared;
      this.coercing.addSchema(body, id);
      this.exact.addSchema(structuredClone(body), id);
      this.checking.addSchema(structuredClone(body), id);
    }
  }

  /** Throws, naming `label`, when the schema is invalid or refers to an unknown component. */
  compile(schema: JsonSchema, location: InputLocation, label: string): InputValidator {
    const ajv = location === 'response' ? this.checking : location === 'body' ? this.exact : this.coercing;
    try {
      return toValidator(ajv.compile(withComponentIds(withoutDialect(schema)) as JsonSchema), location);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`invalid ${location} schema for ${label}: ${reason}`, { cause: error });
    }
  }
}
