import {
  Type,
  type ObjectOptions,
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

/** `T` or null, as draft-07 `type: [T, 'null']` (OpenAPI 3.0 `nullable: true`); primitives only. */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  const type = (schema as { type?: unknown }).type;
  if (typeof type !== 'string') throw new Error('Nullable takes a schema with one primitive type');
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
