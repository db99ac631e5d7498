/**
 * OpenAPI 3.0 read strictly, as a client generator or validator does (not as Swagger UI forgives):
 *  - `nullable: true` adds null only to the `type` of the same schema (3.0.3): beside `allOf` or
 *    `$ref` it does not make a referenced object nullable, and an `enum` must list `null` itself;
 *  - a `$ref` ignores its siblings.
 * `strictOpenApiProblems` lists what a strict reader would get wrong in a document (the contract
 * test asserts none); `oasToJsonSchema` turns a 3.0 schema into the JSON Schema Ajv validates
 * with exactly those semantics (test/support/contract.ts).
 */
type Schema = Record<string, unknown>;

const COMPOSITIONS = ['allOf', 'oneOf', 'anyOf'] as const;
/** OpenAPI-only annotations with no validation meaning. */
const ANNOTATIONS = new Set(['nullable', 'example', 'discriminator', 'xml', 'externalDocs', 'deprecated']);

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every schema object in a schema (itself, properties, items, compositions), with its JSON pointer. */
function* schemasIn(schema: unknown, pointer: string): Generator<[Schema, string]> {
  if (!isObject(schema)) return;
  yield [schema, pointer];
  if (isObject(schema.properties))
    for (const [k, v] of Object.entries(schema.properties)) yield* schemasIn(v, `${pointer}/properties/${k}`);
  if (schema.items) yield* schemasIn(schema.items, `${pointer}/items`);
  if (isObject(schema.additionalProperties))
    yield* schemasIn(schema.additionalProperties, `${pointer}/additionalProperties`);
  if (schema.not) yield* schemasIn(schema.not, `${pointer}/not`);
  for (const c of COMPOSITIONS)
    if (Array.isArray(schema[c])) for (const [i, v] of schema[c].entries()) yield* schemasIn(v, `${pointer}/${c}/${i}`);
}

/** Every schema of a document: components, parameters, request bodies, responses. */
function* documentSchemas(document: Schema): Generator<[Schema, string]> {
  const components = (document.components ?? {}) as Schema;
  for (const [name, s] of Object.entries((components.schemas ?? {}) as Schema))
    yield* schemasIn(s, `#/components/schemas/${name}`);
  for (const [path, item] of Object.entries((document.paths ?? {}) as Record<string, Schema>)) {
    for (const [method, op] of Object.entries(item)) {
      if (!isObject(op)) continue;
      const at = `#/paths/${path}/${method}`;
      for (const [i, p] of ((op.parameters ?? []) as Schema[]).entries())
        yield* schemasIn(p.schema, `${at}/parameters/${i}`);
      const body = op.requestBody as Schema | undefined;
      for (const [type, media] of Object.entries((body?.content ?? {}) as Record<string, Schema>))
        yield* schemasIn(media.schema, `${at}/requestBody/${type}`);
      for (const [status, r] of Object.entries((op.responses ?? {}) as Record<string, Schema>))
        for (const [type, media] of Object.entries((r.content ?? {}) as Record<string, Schema>))
          yield* schemasIn(media.schema, `${at}/responses/${status}/${type}`);
    }
  }
}

export function strictOpenApiProblems(document: Schema, opts: { docsBaseUrl?: string } = {}): string[] {
  const problems: string[] = [];
  for (const [s, at] of documentSchemas(document)) {
    if (s.$ref && Object.keys(s).some((k) => k !== '$ref'))
      problems.push(`${at}: $ref with siblings (${Object.keys(s).join(', ')}), which OpenAPI 3.0 ignores`);
    if (s.nullable === true) {
      if (!s.type) problems.push(`${at}: nullable without type (OpenAPI 3.0 ignores it)`);
      if (COMPOSITIONS.some((c) => Array.isArray(s[c])))
        problems.push(`${at}: nullable beside ${COMPOSITIONS.filter((c) => s[c]).join('/')} (null is still refused)`);
      if (Array.isArray(s.enum) && !s.enum.includes(null)) problems.push(`${at}: nullable enum without null`);
    }
  }
  for (const [path, item] of Object.entries((document.paths ?? {}) as Record<string, Schema>)) {
    for (const [method, op] of Object.entries(item)) {
      if (!isObject(op) || !isObject(op.responses)) continue;
      for (const [status, r] of Object.entries(op.responses as Record<string, Schema>)) {
        const content = (r.content ?? {}) as Record<string, Schema>;
        if (/^2\d\d$/.test(status) && status !== '204' && !Object.values(content).some((m) => m.schema))
          problems.push(`${method.toUpperCase()} ${path} ${status}: no response schema`);
        for (const media of Object.values(content)) {
          const examples = Object.values((media.examples ?? {}) as Record<string, Schema>).map((e) => e.value);
          if (media.example !== undefined) examples.push(media.example);
          for (const ex of examples) {
            const docsUrl = (ex as { error?: { docsUrl?: unknown } } | undefined)?.error?.docsUrl;
            if (typeof docsUrl === 'string' && opts.docsBaseUrl && !docsUrl.startsWith(`${opts.docsBaseUrl}#`))
              problems.push(
                `${method.toUpperCase()} ${path} ${status}: example docsUrl ${docsUrl} is not under ${opts.docsBaseUrl}`,
              );
          }
        }
      }
    }
  }
  return problems;
}

/**
 * A 3.0 schema as JSON Schema (draft-07) with strict 3.0 semantics. `$ref`s to
 * `#/components/schemas/X` become `<refBase>#/components/schemas/X` (the converted document added
 * to Ajv under that id).
 */
export function oasToJsonSchema(schema: unknown, refBase: string): unknown {
  if (Array.isArray(schema)) return schema.map((s) => oasToJsonSchema(s, refBase));
  if (!isObject(schema)) return schema;
  if (typeof schema.$ref === 'string') return { $ref: `${refBase}${schema.$ref}` };
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema)) {
    if (ANNOTATIONS.has(k)) continue;
    if (k === 'properties' && isObject(v))
      out[k] = Object.fromEntries(Object.entries(v).map(([p, s]) => [p, oasToJsonSchema(s, refBase)]));
    else if (['items', 'not', 'additionalProperties', ...COMPOSITIONS].includes(k))
      out[k] = oasToJsonSchema(v, refBase);
    else out[k] = v;
  }
  if (schema.nullable === true && typeof schema.type === 'string') out.type = [schema.type, 'null'];
  return out;
}

/** The document's component schemas converted, to add to Ajv under `refBase`. */
export function componentsAsJsonSchema(document: Schema, refBase: string): Schema {
  const schemas = ((document.components as Schema | undefined)?.schemas ?? {}) as Schema;
  return {
    $id: refBase,
    components: {
      schemas: Object.fromEntries(Object.entries(schemas).map(([k, s]) => [k, oasToJsonSchema(s, refBase)])),
    },
  };
}

/**
 * Rewrites what strict readers get wrong in the generated document: `nullable` beside a single
 * `allOf` reference (the swagger plugin's shape for `X | null`) becomes `anyOf: [X, null]`, and a
 * nullable enum lists `null`.
 */
export function makeNullablesStrict(document: Schema): void {
  for (const [s] of documentSchemas(document)) {
    if (s.nullable !== true) continue;
    if (Array.isArray(s.allOf) && s.allOf.length === 1) {
      const ref = s.allOf[0] as Schema;
      delete s.allOf;
      delete s.nullable;
      delete s.type;
      s.anyOf = [ref, { type: 'object', nullable: true, enum: [null] }];
    }
    if (Array.isArray(s.enum) && !s.enum.includes(null)) s.enum = [...(s.enum as unknown[]), null];
  }
}
