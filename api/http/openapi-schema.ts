import type { JsonSchema } from './route.js';

/**
 * Converts the JSON Schema (draft-07) of the route table to the OpenAPI 3.0 schema dialect.
 * Keywords 3.0 cannot express throw, naming the schema, so the route table never silently
 * describes something the document does not.
 */

// Keywords whose value is one schema.
const SCHEMA_KEYWORDS = ['not', 'additionalProperties', 'items'];
// Keywords whose value is a list of schemas.
const SCHEMA_LIST_KEYWORDS = ['allOf', 'anyOf', 'oneOf'];
// Keywords whose value maps names to schemas.
const SCHEMA_MAP_KEYWORDS = ['properties'];
// Plain keywords that mean the same in both dialects.
const PASSTHROUGH = new Set([
  'title',
  'description',
  'type',
  'format',
  'default',
  'enum',
  'multipleOf',
  'maximum',
  'minimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxProperties',
  'minProperties',
  'required',
  'nullable',
  'readOnly',
  'writeOnly',
  'deprecated',
  'example',
  'discriminator',
  'xml',
  'externalDocs',
  '$ref',
]);
// Draft keywords with no 3.0 meaning worth keeping in a document.
const DROPPED = new Set(['$schema', '$id', '$comment']);

function fail(where: string, message: string): never {
  throw new Error(`cannot express schema at ${where} in OpenAPI 3.0: ${message}`);
}

function convertType(schema: JsonSchema, out: Record<string, unknown>, where: string): void {
  const listed = Array.isArray(schema.type) ? schema.type : schema.type === 'null' ? ['null'] : undefined;
  if (!listed) return;
  const types = listed.filter((type) => type !== 'null');
  const nullable = types.length < listed.length;
  delete out.type;
  if (types.length === 1) out.type = types[0];
  else if (types.length > 1) {
    if (schema.properties || schema.items) fail(where, 'a multi-type schema with properties or items');
    out.anyOf = types.map((type) => ({ type }));
  } else out.enum = [null];
  if (nullable) out.nullable = true;
}

function convertExclusive(schema: JsonSchema, out: Record<string, unknown>): void {
  // Draft-06+ exclusive bounds are numbers; 3.0 uses booleans beside minimum/maximum.
  for (const [exclusive, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    const value = schema[exclusive];
    if (typeof value === 'number') {
      out[bound] = value;
      out[exclusive] = true;
    } else if (typeof value === 'boolean') out[exclusive] = value;
  }
}

export function toOpenApiSchema(schema: JsonSchema, where = '#'): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(schema)) {
    const at = `${where}/${keyword}`;
    if (DROPPED.has(keyword) || keyword === 'exclusiveMinimum' || keyword === 'exclusiveMaximum') continue;
    if (keyword.startsWith('x-')) out[keyword] = value;
    else if (keyword === 'const') out.enum = [value];
    else if (keyword === 'examples') {
      if (Array.isArray(value) && value.length > 0 && !('example' in schema)) out.example = value[0];
    } else if (SCHEMA_KEYWORDS.includes(keyword)) {
      if (keyword === 'items' && Array.isArray(value)) fail(at, 'tuple items');
      out[keyword] = typeof value === 'boolean' ? value : toOpenApiSchema(value as JsonSchema, at);
    } else if (SCHEMA_LIST_KEYWORDS.includes(keyword)) {
      out[keyword] = (value as JsonSchema[]).map((child, index) => toOpenApiSchema(child, `${at}/${index}`));
    } else if (SCHEMA_MAP_KEYWORDS.includes(keyword)) {
      const entries = Object.entries(value as Record<string, JsonSchema>);
      out[keyword] = Object.fromEntries(
        entries.map(([name, child]) => [name, toOpenApiSchema(child, `${at}/${name}`)]),
      );
    } else if (PASSTHROUGH.has(keyword)) out[keyword] = value;
    else fail(at, `keyword "${keyword}" is not supported`);
  }
  convertType(schema, out, where);
  convertExclusive(schema, out);
  if (out.$ref !== undefined && Object.keys(out).length > 1) {
    // 3.0 ignores siblings of $ref; keep what they say by wrapping the reference.
    const { $ref, ...rest } = out;
    return { ...rest, allOf: [{ $ref }, ...((rest.allOf as unknown[] | undefined) ?? [])] };
  }
  return out;
}
