import { isoTimestamp } from './sql.js';

/**
 * One declaration per response view: the list of a view's fields, each with its JSON schema and
 * where its value comes from (a column of the view's table, an SQL expression, or a nested view).
 * The row type (`ViewOf`), the OpenAPI schema (`view.schema`), the Prisma `select`
 * (`view.select`), the SQL select list (`view.columns()`) and the SQL object
 * (`view.json()`) are derived from it, so a field added here is added everywhere, and a column
 * not declared here is never returned.
 *
 *   export const eventSummaryView = defineView('EventSummary', {
 *     id: v.int(), name: v.str(), isJoined: v.bool().sql('(p.id IS NOT NULL)'),
 *   }, { alias: 'e' });
 *   type EventSummary = ViewOf<typeof eventSummaryView>;
 *   sql('events_list', `SELECT ${eventSummaryView.columns()} FROM "Event" e LEFT JOIN …`)
 */

type Schema = Record<string, unknown>;

/** Where a field's value comes from: a column of the view's table, an SQL expression, a nested view. */
export type FieldSource = 'column' | 'expr' | 'nested';

/** A declared field of a view; `T` is its value as a column read gives it (phantom). */
export interface ViewField<T, S extends FieldSource = FieldSource> {
  readonly schema: Schema;
  readonly source: S;
  /** SQL of the value, with its table aliases written out (default: `<view alias>."<field name>"`). */
  readonly expr?: string;
  /** true for timestamps: json() renders them like Date.toJSON */
  readonly timestamp: boolean;
  /** a nested view: rendered as its json() over its own alias (null when `nullable` and its row is missing) */
  readonly nested?: NestedView;
  /** The value is this SQL expression (aliases written out), not a column: left out of `select`. */
  sql(expr: string): ViewField<T, 'expr'>;
  describe(description: string, extra?: Schema): ViewField<T, S>;
  readonly _type?: T;
}

interface NestedView {
  view: AnyView;
  alias: string;
  /** a LEFT JOINed row that may be missing: the field is null then */
  nullable?: boolean;
}

function vf<T, S extends FieldSource = 'column'>(
  schema: Schema,
  timestamp = false,
  more: { source?: S; expr?: string; nested?: NestedView } = {},
): ViewField<T, S> {
  return {
    schema,
    timestamp,
    source: (more.source ?? 'column') as S,
    expr: more.expr,
    nested: more.nested,
    sql: (expr) => vf<T, 'expr'>(schema, timestamp, { source: 'expr', expr }),
    describe: (description, extra = {}) => vf<T, S>({ ...schema, description, ...extra }, timestamp, more),
  };
}

/** Field kinds of views. */
export const v = {
  int: () => vf<number>({ type: 'integer' }),
  num: () => vf<number>({ type: 'number' }),
  str: () => vf<string>({ type: 'string' }),
  bool: () => vf<boolean>({ type: 'boolean' }),
  dateTime: () => vf<Date>({ type: 'string', format: 'date-time' }, true),
  nullInt: () => vf<number | null>({ type: ['integer', 'null'] }),
  nullNum: () => vf<number | null>({ type: ['number', 'null'] }),
  nullStr: () => vf<string | null>({ type: ['string', 'null'] }),
  nullBool: () => vf<boolean | null>({ type: ['boolean', 'null'] }),
  nullDateTime: () => vf<Date | null>({ type: ['string', 'null'], format: 'date-time' }, true),
  oneOf: <const V extends readonly string[]>(values: V) => vf<V[number]>({ type: 'string', enum: [...values] }),
  /** A value of any JSON shape described by `schema` (a json column, an aggregate). */
  json: <T>(schema: Schema) => vf<T>(schema),
  /** A nested view over its own alias (a joined table), e.g. `partner: v.view(userSummaryView, 'u')`. */
  view: <F extends Fields>(view: View<F>, alias: string) =>
    vf<ViewOf<View<F>>, 'nested'>({ $ref: `#/components/schemas/${view.name}` }, false, {
      source: 'nested',
      nested: { view: view as unknown as AnyView, alias },
    }) as Nested<ViewOf<View<F>>, F>,
  /** A nested view over a LEFT JOINed alias that may find no row: null then, e.g. `recorder: v.nullView(userSummaryView, 'ru')`. */
  nullView: <F extends Fields>(view: View<F>, alias: string) =>
    vf<ViewOf<View<F>> | null, 'nested'>(
      { oneOf: [{ $ref: `#/components/schemas/${view.name}` }, { type: 'null' }] },
      false,
      { source: 'nested', nested: { view: view as unknown as AnyView, alias, nullable: true } },
    ) as Nested<ViewOf<View<F>> | null, F>,
};

/** A nested view field that keeps its view's fields in its type (phantom, for the Prisma select). */
type Nested<T, F extends Fields> = ViewField<T, 'nested'> & { readonly _nestedFields?: F };

type Fields = Record<string, ViewField<unknown>>;
type AnyView = View<Fields>;

/** The Prisma select of a view: its columns, and the select of its nested views. */
export type SelectOf<F extends Fields> = {
  [K in keyof F as F[K]['source'] extends 'expr' ? never : K]: F[K]['source'] extends 'nested'
    ? F[K] extends { readonly _nestedFields?: infer N }
      ? N extends Fields
        ? { select: SelectOf<N> }
        : never
      : never
    : true;
};

export type ViewOf<V> =
  V extends View<infer F> ? { [K in keyof F]: F[K] extends ViewField<infer T> ? T : never } : never;

export class View<F extends Fields> {
  constructor(
    /** the component name in the OpenAPI document */
    readonly name: string,
    readonly fields: F,
    /** the SQL alias of the view's table */
    readonly alias: string,
  ) {}

  /** The field names, in declaration order. */
  get keys(): (keyof F & string)[] {
    return Object.keys(this.fields) as (keyof F & string)[];
  }

  /** The OpenAPI schema: a closed object with every field required. */
  get schema(): Schema {
    const properties = Object.fromEntries(Object.entries(this.fields).map(([k, fld]) => [k, fld.schema]));
    return { type: 'object', additionalProperties: false, required: Object.keys(properties), properties };
  }

  /** Prisma `select` of the fields that are columns of the view's table (nested views: their select). */
  get select(): SelectOf<F> {
    const out: Record<string, unknown> = {};
    for (const [k, fld] of Object.entries(this.fields)) {
      if (fld.nested) out[k] = { select: fld.nested.view.select };
      else if (fld.source === 'column') out[k] = true;
    }
    return out as SelectOf<F>;
  }

  private exprOf(key: string, fld: ViewField<unknown>, alias: string): string {
    if (fld.nested) {
      const { view, alias: at, nullable } = fld.nested;
      if (!nullable) return view.json(at);
      const missing = 'id' in view.fields ? `${at}.id IS NULL` : `${at} IS NULL`;
      return `CASE WHEN ${missing} THEN NULL ELSE ${view.json(at)} END`;
    }
    if (fld.expr !== undefined) return fld.expr;
    return `${alias}."${key}"`;
  }

  /** The SQL select list (`e.id, e."startDate", (…) AS "isJoined"`), each field under its own name. */
  columns(alias = this.alias): string {
    return Object.entries(this.fields)
      .map(([k, fld]) => {
        const expr = this.exprOf(k, fld, alias);
        return expr === `${alias}."${k}"` ? expr : `${expr} AS "${k}"`;
      })
      .join(', ');
  }

  /** `json_build_object(…)` of the view, timestamps rendered like Date.toJSON (for json_agg and nesting). */
  json(alias = this.alias): string {
    const parts = Object.entries(this.fields).map(([k, fld]) => {
      const expr = this.exprOf(k, fld, alias);
      return `'${k}', ${fld.timestamp ? isoTimestamp(expr) : expr}`;
    });
    return `json_build_object(${parts.join(', ')})`;
  }
}

/** Declares a view (see the module header). `name` is its component name in the OpenAPI document. */
export function defineView<const F extends Fields>(name: string, fields: F, { alias }: { alias: string }): View<F> {
  return new View(name, fields, alias);
}
