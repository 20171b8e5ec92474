import type { Compilable, CompiledQuery, Kysely } from 'kysely';

/** What a prepared query takes: single values, or lists (each `in (…)` length is a shape of its own). */
export type QueryArg = string | number | readonly string[];

/** Distinct list lengths kept compiled per query; past that a call compiles its query afresh. */
const MAX_SHAPES = 64;
/** Marks a placeholder value: no argument Cairn passes starts with a NUL (inputs with NUL are refused). */
const MARK = '\u0000cairn-arg:';

interface Shape {
  compiled: CompiledQuery;
  /** For each parameter: the argument it comes from (-1: a constant of the query), and the list index (-1: the argument itself). */
  arg: Int32Array;
  item: Int32Array;
  constants: unknown[];
}

/**
 * A query built and compiled once per shape, then run with fresh parameters: Kysely rebuilds and
 * recompiles a query's tree on every call, a share of a search's CPU (docs/benchmarks.md). `build` is called
 * with placeholder values, so it must use its arguments only as values (a where, an `in` list, a
 * limit), never to choose the query's structure; the first compile checks that every placeholder
 * came out as a parameter.
 */
export function preparedQuery<A extends QueryArg[], R>(
  db: Kysely<any>,
  name: string,
  build: (...args: A) => Compilable<R>,
): (...args: A) => Promise<R[]> {
  const shapes = new Map<string, Shape>();
  return async (...args: A) => {
    const key = shapeKey(args);
    let shape = shapes.get(key);
    if (!shape) {
      shape = compileShape(name, build, args);
      if (shapes.size < MAX_SHAPES) shapes.set(key, shape);
    }
    const { arg, item, constants } = shape;
    const parameters = new Array<unknown>(arg.length);
    for (let p = 0; p < arg.length; p++) {
      const a = arg[p]!;
      parameters[p] = a < 0 ? constants[p] : item[p]! < 0 ? args[a] : (args[a] as readonly string[])[item[p]!];
    }
    const result = await db.executeQuery<R>({ ...shape.compiled, parameters } as CompiledQuery<R>);
    return result.rows;
  };
}

function shapeKey(args: readonly QueryArg[]): string {
  let key = '';
  for (const a of args) key += typeof a === 'object' ? `${a.length},` : '.,';
  return key;
}

function compileShape<A extends QueryArg[], R>(name: string, build: (...args: A) => Compilable<R>, args: A): Shape {
  const placeholders = args.map((a, i) =>
    typeof a === 'object' ? a.map((_, j) => `${MARK}${i}.${j}`) : `${MARK}${i}`,
  ) as unknown as A;
  const compiled = build(...placeholders).compile();
  const n = compiled.parameters.length;
  const shape: Shape = { compiled, arg: new Int32Array(n), item: new Int32Array(n), constants: new Array(n) };
  const seen = new Set<string>();
  compiled.parameters.forEach((value, p) => {
    if (typeof value !== 'string' || !value.startsWith(MARK)) {
      shape.arg[p] = -1;
      shape.constants[p] = value;
      return;
    }
    seen.add(value);
    const [a, j] = value.slice(MARK.length).split('.');
    shape.arg[p] = Number(a);
    shape.item[p] = j === undefined ? -1 : Number(j);
  });
  const expected = (placeholders as unknown as (string | string[])[]).flat();
  if (compiled.sql.includes(MARK) || expected.some((v) => !seen.has(v))) {
    throw new Error(`prepared query ${name}: an argument did not become a parameter (it must be used as a value only)`);
  }
  if (!statementNames.has(compiled.sql)) statementNames.set(compiled.sql, `cairn_${statementNames.size + 1}`);
  return shape;
}

// Module-level on purpose: SQL texts with placeholders (no values), one per query shape, the same in every Cairn.
/** The SQL texts of prepared queries, each with a name of its own for a database that keeps named statements. */
const statementNames = new Map<string, string>();

/**
 * The statement name of a prepared query's SQL (undefined for any other SQL): PostgreSQL parses and
 * plans a named statement once per connection instead of on every call.
 */
export function statementName(sql: string): string | undefined {
  return statementNames.get(sql);
}
