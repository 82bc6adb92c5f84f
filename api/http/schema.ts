import {
  Type,
  type ObjectOptions,
  type SchemaOptions,
  type Static,
  type TProperties,
  type TSchema,
  type TUnsafe,
} from '@sinclair/typebox';

/**
 * Route schemas are written once, with TypeBox: each is a JSON Schema (what ajv validates and
 * the OpenAPI document shows) and, through `Static`, the TypeScript type of what it describes
 * (what handlers receive and must return). These helpers add what OpenAPI 3.0 needs on top.
 */
export { Type, type Static, type TSchema };

const COMPONENT_REF = '#/components/schemas/';

/** `T` or null, as draft-07 `type: [T, 'null']` (OpenAPI 3.0 `nullable: true`); a schema of one type. */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  const type = (schema as { type?: unknown }).type;
  if (typeof type !== 'string') throw new Error('Nullable takes a schema with one type');
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [type, 'null'] });
}

/** A reference to a shared component (`#/components/schemas/<name>`), typed as the component. */
export function ComponentRef<T extends TSchema>(name: string, _component: T): TUnsafe<Static<T>> {
  return Type.Unsafe<Static<T>>({ $ref: `${COMPONENT_REF}${name}` });
}

/**
 * An object with exactly these properties: each is required unless marked Type.Optional, and no
 * other is allowed. On a response, checking answers against it (CAIRN_VALIDATE_RESPONSES) finds a
 * handler that adds, drops or renames a field; on a request, an unknown field is a 400.
 */
export function StrictObject<T extends TProperties>(properties: T, options: ObjectOptions = {}) {
  return Type.Object(properties, { additionalProperties: false, ...options });
}

/**
 * One of these strings, as a single `enum` (a union of literals would read as an anyOf of
 * one-value enums in OpenAPI).
 */
export function StringEnum<const V extends string>(values: readonly V[], options: SchemaOptions = {}) {
  return Type.Unsafe<V>({ ...options, type: 'string', enum: [...values] });
}

/** The same, or null: a nullable enum lists null among its values, so Nullable() cannot make one. */
export function NullableStringEnum<const V extends string>(
  values: readonly V[],
  options: SchemaOptions = {},
) {
  return Type.Unsafe<V | null>({ ...options, type: ['string', 'null'], enum: [...values, null] });
}

/** An ISO 8601 instant, as toISOString writes it. */
export const DateTime = (options: SchemaOptions = {}) => Type.String({ ...options, format: 'date-time' });

/** A JSON object whose members the API does not describe (a definition as written, a payload). */
export const AnyObject = (options: SchemaOptions = {}) =>
  Type.Unsafe<Record<string, unknown>>({ ...options, type: 'object' });

/** A JSON object of string values under any names (OpenAPI 3.0 has no patternProperties). */
export const StringMap = (options: SchemaOptions = {}) =>
  Type.Unsafe<Record<string, string>>({
    ...options,
    type: 'object',
    additionalProperties: { type: 'string', maxLength: 100_000 },
  });
