/**
 * The JSON Schemas tools/list shows, cut to what a client reads. Every client that loads the tool
 * list into a model's context pays for each character in every session; output schemas were most of
 * it (docs/mcp.md, "Tools").
 *
 * The server still validates arguments and results with the full zod schemas; what is listed only
 * loosens them, so a result that passes the server passes any client that validates against the
 * listed output schema (as the MCP SDK client does).
 */

type Json = Record<string, unknown>;

/** zod writes these bounds for every z.number().int(); they say nothing a client needs. */
const SAFE_INTEGER_BOUNDS = { minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER } as const;

/**
 * An input schema as listed: as converted, without the root `$schema` (MCP assumes draft 2020-12
 * when it is absent), the safe-integer bounds and `minLength: 1` (an empty string is refused with
 * a message that says so; no model sends one on purpose).
 */
export function listedInputSchema(schema: Json): Json {
  const { $schema: _, ...rest } = schema;
  return withoutTrivialBounds(rest) as Json;
}

/**
 * An output schema as listed: the result's own fields, with their types and which are always there.
 * What is inside a field (an entry, a datapack, the items of a list) is listed as an object or an
 * array, without its fields: the text result and the docs name them, and their full schema would be
 * repeated in six tools. Descriptions, bounds and `additionalProperties: false` are dropped too: they
 * constrain the server, not what a client reads.
 */
export function listedOutputSchema(schema: Json): Json {
  return outline(schema, 0);
}

/** Properties are named this many levels deep: the result's own fields only. */
const OUTPUT_DEPTH = 1;

function outline(node: Json, depth: number): Json {
  const out: Json = {};
  if (node.type !== undefined) out.type = node.type;
  if (node.enum !== undefined) out.enum = node.enum;
  if (Array.isArray(node.anyOf)) {
    const options = (node.anyOf as Json[]).map((n) => outline(n, depth));
    // `anyOf: [{ type: 'object' }, { type: 'null' }]` says the same as `type: ['object', 'null']`.
    const bare = options.every((o) => Object.keys(o).length === 1 && typeof o.type === 'string');
    if (bare) out.type = options.map((o) => o.type);
    else out.anyOf = options;
  }
  if (node.items !== undefined) {
    const items = outline(node.items as Json, depth);
    // For an array of objects whose fields are not listed, `items: { type: 'object' }` adds next to nothing.
    if (items.properties !== undefined || items.type !== 'object') out.items = items;
  }
  if (node.properties !== undefined && depth < OUTPUT_DEPTH) {
    out.properties = Object.fromEntries(
      Object.entries(node.properties as Record<string, Json>).map(([key, child]) => [key, outline(child, depth + 1)]),
    );
    if (node.required !== undefined) out.required = node.required;
  }
  return out;
}

function withoutTrivialBounds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutTrivialBounds);
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if ((key === 'minimum' || key === 'maximum') && value === SAFE_INTEGER_BOUNDS[key]) continue;
    if (key === 'minLength' && value === 1) continue;
    out[key] = withoutTrivialBounds(value);
  }
  return out;
}
