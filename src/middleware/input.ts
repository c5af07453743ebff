import type { Response } from 'express';
import { body, matchedData, param, query, validationResult, type ValidationChain } from 'express-validator';
import { validationFailed } from '../lib/errors.js';
import {
  CONTROL_CHARACTER,
  DATE_MAX,
  DATE_MIN,
  INT32_MAX,
  emailField,
  isoDate,
  newEmailField,
  passwordField,
} from './validators.js';

/**
 * One declaration per request input (route parameters, query, JSON body; a socket payload is a
 * body): the express-validator chains that validate and sanitise it, its TypeScript type and its
 * OpenAPI parameters and request body are all derived from it, so they cannot drift apart.
 *
 *   export const createEventInput = defineInput('createEvent', {
 *     body: { name: f.text({ max: 200 }), description: f.nullableText({ max: 5000 }).optional() },
 *   });
 *   export type CreateEventInput = InputOf<typeof createEventInput>;
 *   router.post('/admin/events', ...admin, validate(createEventInput), (req, res) => createEventInput.from(res) …)
 *
 * express-validator stays the validating engine: each field kind (`f.*`) builds its chain from the
 * shared atoms of validators.ts, so messages stay those the SPEC and the tests quote.
 */

type Schema = Record<string, unknown>;
export type InputLocation = 'params' | 'query' | 'body';

/** A declared field: its chain, its JSON schema and (as a phantom type) its validated value. */
export interface Field<T, R extends boolean = true> {
  readonly required: R;
  readonly schema: Schema;
  /** Completes `body(name)` / `query(name)` / `param(name)`, already made optional when the field is. */
  readonly build: (chain: ValidationChain, name: string, optional: boolean, where: InputLocation) => ValidationChain;
  /** Absent is allowed (`null` too with `{ values: 'null' }`); the value is then `undefined` (or null). */
  optional(values?: 'undefined' | 'null'): Field<T | undefined, false>;
  /** The same field with an OpenAPI description (and, optionally, an example or a default). */
  describe(description: string, extra?: Schema): Field<T, R>;
  /** Phantom: the type of the validated value (never set at run time). */
  readonly _type?: T;
}

function field<T, R extends boolean = true>(
  schema: Schema,
  build: Field<T, R>['build'],
  required: R = true as R,
): Field<T, R> {
  return {
    required,
    schema,
    build,
    optional(values: 'undefined' | 'null' = 'undefined') {
      return field<T | undefined, false>(
        schema,
        (chain, name, _optional, where) =>
          build(chain.optional({ values: values === 'null' ? 'null' : 'undefined' }), name, true, where),
        false,
      );
    },
    describe(description: string, extra: Schema = {}) {
      return field<T, R>({ ...schema, description, ...extra }, build, required);
    },
  };
}

/** A required chain: absent (undefined) is "<label> is required". */
const present = (chain: ValidationChain, label: string, optional: boolean) =>
  optional ? chain : chain.exists({ values: 'undefined' }).withMessage(`${label} is required`).bail();

interface TextOptions {
  /** the name in messages (default: the field's name) */
  label?: string;
  min?: number;
  max: number;
  /** refuse C0/C1 control characters (CR, LF, TAB included) after trimming */
  plain?: boolean;
}

/** The field kinds. Each reuses the atoms of validators.ts; new kinds go here, not in a feature. */
export const f = {
  /** A required, trimmed string of min (default 1) to max characters. */
  text({ label, min = 1, max, plain = false }: TextOptions): Field<string> {
    return field<string>({ type: 'string', minLength: min, maxLength: max }, (chain, name, optional) => {
      const l = label ?? name;
      let c = present(chain, l, optional)
        .isString()
        .withMessage(`${l} must be a string`)
        .bail()
        .trim()
        .isLength({ min, max })
        .withMessage(min > 0 ? `${l} must be ${min}-${max} characters` : `${l} must be at most ${max} characters`);
      if (plain) c = c.bail().not().matches(CONTROL_CHARACTER).withMessage(`${l} must not contain control characters`);
      return c;
    });
  },

  /**
   * A text that may be null (null clears it) or absent, trimmed, at most max characters
   * (validators.ts optionalText); `plain` also refuses control characters (validators.ts plainText).
   */
  nullableText({ label, max, plain = false }: Omit<TextOptions, 'min'>): Field<string | null | undefined, false> {
    return field<string | null | undefined, false>(
      { type: ['string', 'null'], maxLength: max },
      (chain, name) => {
        const l = label ?? name;
        let c = chain
          .optional({ values: 'null' })
          .isString()
          .withMessage(`${l} must be a string or null`)
          .bail()
          .trim()
          .isLength({ max })
          .withMessage(`${l} must be at most ${max} characters`);
        if (plain)
          c = c.bail().not().matches(CONTROL_CHARACTER).withMessage(`${name} must not contain control characters`);
        return c;
      },
      false,
    );
  },

  /** An ISO 8601 date or date-time from 1900-01-01 to 9999-12-31 UTC, converted to a Date (validators.ts isoDate). */
  date({ label }: { label?: string } = {}): Field<Date> {
    return field<Date>(
      {
        type: 'string',
        description: `ISO 8601 date or date-time, ${DATE_MIN.toISOString().slice(0, 10)} to ${DATE_MAX.toISOString().slice(0, 10)} UTC (else 400)`,
      },
      (chain, name, optional) => isoDate(present(chain, label ?? name, optional), label ?? name),
    );
  },

  /**
   * A whole number in [min, max] (default: a positive int32, the range of an id column). JSON
   * numbers only in a body; in the query and the path the digits are converted.
   */
  int({ label, min = 1, max = INT32_MAX }: { label?: string; min?: number; max?: number } = {}): Field<number> {
    return field<number>({ type: 'integer', minimum: min, maximum: max }, (chain, name, optional, where) => {
      const l = label ?? name;
      const inRange = (n: number) => Number.isInteger(n) && n >= min && n <= max;
      return present(chain, l, optional)
        .custom((v: unknown) =>
          where === 'body'
            ? typeof v === 'number' && inRange(v)
            : typeof v === 'string' && /^\d{1,10}$/.test(v) && inRange(Number(v)),
        )
        .withMessage(`${l} must be a whole number from ${min} to ${max}`)
        .bail()
        .customSanitizer((v: unknown) => Number(v));
    });
  },

  /** A boolean (JSON true/false; "true"/"false" in the query). */
  bool({ label }: { label?: string } = {}): Field<boolean> {
    return field<boolean>({ type: 'boolean' }, (chain, name, optional, where) => {
      const l = label ?? name;
      return present(chain, l, optional)
        .custom((v: unknown) => (where === 'body' ? typeof v === 'boolean' : v === 'true' || v === 'false'))
        .withMessage(`${l} must be true or false`)
        .bail()
        .customSanitizer((v: unknown) => v === true || v === 'true');
    });
  },

  /** One of the given strings. */
  oneOf<const V extends readonly string[]>(values: V, { label, message }: { label?: string; message?: string } = {}) {
    return field<V[number]>({ type: 'string', enum: [...values] }, (chain, name, optional) => {
      const l = label ?? name;
      return present(chain, l, optional)
        .isIn([...values])
        .withMessage(message ?? `${l} must be one of ${values.join(', ')}`);
    });
  },

  /** A path parameter kept as given: an unknown slug or token is the service's 404. */
  param(schema: Schema = { type: 'string' }): Field<string> {
    return field<string>(schema, (chain) => chain.isString());
  },

  /** The random alphanumeric slug of an event or a match (a path parameter; unknown → 404 of the service). */
  slug(): Field<string> {
    return f.param({ type: 'string', maxLength: 50, description: 'random alphanumeric slug' });
  },

  /** An e-mail address (validators.ts emailField); `fresh` also refuses unsafe local parts (newEmailField). */
  email({ fresh = false }: { fresh?: boolean } = {}): Field<string> {
    return field<string>({ type: 'string', format: 'email', maxLength: 254 }, (chain, name) =>
      fresh ? newEmailField(name, chain) : emailField(name, chain),
    );
  },

  /** A password of the policy (validators.ts passwordField): 6+ characters, at most 72 bytes. */
  password(): Field<string> {
    return field<string>(
      { type: 'string', minLength: 6, description: 'at least 6 characters, at most 72 bytes (UTF-8)' },
      (chain, name) => passwordField(name, chain),
    );
  },

  /**
   * A structured value checked by a parse function rather than by one chain per field, for a
   * body whose contract is "the first problem answers with its own message": `parse` returns the
   * normalized value or throws its own AppError (e.g. `validationFailed(details, message)`), which
   * is the answer as it is, not "Validation failed". It runs when its chain runs (declaration
   * order), so declare it after the fields whose refusals must come first. `schema` documents it.
   */
  parsed<T>(schema: Schema, parse: (value: unknown) => T): Field<T> {
    // A custom sanitizer's exception is not caught by express-validator: it leaves runChains as thrown.
    return field<T>(schema, (chain) => chain.customSanitizer((value: unknown) => parse(value)));
  },

  /**
   * Escape hatch for a rule no kind expresses: `build` completes the chain (it is given
   * `body(name)`/`query(name)`/`param(name)`, made optional when the field is); `schema`
   * documents it. Prefer adding a kind above when two features need the same rule.
   */
  custom<T>(schema: Schema, build: Field<T>['build']): Field<T> {
    return field<T>(schema, build);
  },
};

type Fields = Record<string, Field<unknown, boolean>>;
type ValueOf<F> = F extends Field<infer T, boolean> ? T : never;
type Required<S extends Fields> = { [K in keyof S as S[K]['required'] extends true ? K : never]: ValueOf<S[K]> };
type Optional<S extends Fields> = { [K in keyof S as S[K]['required'] extends true ? never : K]?: ValueOf<S[K]> };
type Flatten<T> = { [K in keyof T]: T[K] };
type Shape<S extends Fields | undefined> = S extends Fields ? Required<S> & Optional<S> : unknown;

export interface InputShape {
  params?: Fields;
  query?: Fields;
  body?: Fields;
}

/** The validated input of a declaration: parameters, query and body fields in one object. */
export type InputOf<D> =
  D extends InputDeclaration<infer S> ? Flatten<Shape<S['params']> & Shape<S['query']> & Shape<S['body']>> : never;

const BUILDERS = { params: param, query, body } as const;

export class InputDeclaration<S extends InputShape> {
  /** The chains, in declaration order (parameters, query, body). */
  readonly chains: ValidationChain[];

  constructor(
    readonly name: string,
    readonly shape: S,
  ) {
    this.chains = (['params', 'query', 'body'] as const).flatMap((where) =>
      Object.entries(shape[where] ?? {}).map(([key, fld]) => {
        const start = BUILDERS[where](key);
        return fld.build(start, key, !fld.required, where);
      }),
    );
  }

  /** OpenAPI: the path and query parameters and the JSON request body schema (undefined without a body). */
  get openapi(): { parameters: Schema[]; body: Schema | undefined } {
    const parameters: Schema[] = [];
    for (const [name, fld] of Object.entries(this.shape.params ?? {})) {
      parameters.push({ name, in: 'path', required: true, schema: withoutDescription(fld.schema), ...describe(fld) });
    }
    for (const [name, fld] of Object.entries(this.shape.query ?? {})) {
      parameters.push({
        name,
        in: 'query',
        ...(fld.required ? { required: true } : {}),
        schema: withoutDescription(fld.schema),
        ...describe(fld),
      });
    }
    const bodyFields = this.shape.body;
    const body = bodyFields
      ? {
          type: 'object',
          additionalProperties: false,
          properties: Object.fromEntries(Object.entries(bodyFields).map(([k, fld]) => [k, fld.schema])),
          ...requiredKeys(bodyFields),
        }
      : undefined;
    return { parameters, body };
  }

  /** The validated input of this request; throws (a 500, a programming error) if validate(this) did not run. */
  from(res: Response): InputOf<this> {
    if (res.locals.inputDeclaration !== this) throw new Error(`input ${this.name}: validate(${this.name}) did not run`);
    return res.locals.input as InputOf<this>;
  }

  /**
   * Validates a socket payload (as a body) and returns its typed value, or throws 400
   * "Validation failed" with details like an HTTP request.
   */
  async parse(payload: unknown): Promise<InputOf<this>> {
    const req = { body: payload !== null && typeof payload === 'object' && !Array.isArray(payload) ? payload : {} };
    return (await this.run(req)) as InputOf<this>;
  }

  /** Runs the chains on a request-like object; throws validationFailed with one detail per field. */
  run(req: object): Promise<Record<string, unknown>> {
    return runChains(this.chains, req);
  }
}

/**
 * Runs express-validator chains on a request-like object and answers its validated, sanitised
 * values, or throws 400 "Validation failed" with `details: [{ field, message }]` (one entry per
 * field, first message wins).
 */
async function runChains(chains: readonly ValidationChain[], req: object): Promise<Record<string, unknown>> {
  for (const chain of chains) await chain.run(req);
  const result = validationResult(req);
  if (!result.isEmpty()) {
    throw validationFailed(
      result.array({ onlyFirstError: true }).map((e) => ({
        field: e.type === 'field' ? e.path : e.type,
        message: String(e.msg),
      })),
    );
  }
  return matchedData(req, { includeOptionals: true });
}

function describe(fld: Field<unknown, boolean>) {
  return typeof fld.schema.description === 'string' ? { description: fld.schema.description } : {};
}
function withoutDescription(schema: Schema): Schema {
  const rest = { ...schema };
  delete rest.description;
  return rest;
}
function requiredKeys(fields: Fields) {
  const keys = Object.entries(fields)
    .filter(([, fld]) => fld.required)
    .map(([k]) => k);
  return keys.length ? { required: keys } : {};
}

/** Declares a request input (see the module header). `name` appears in errors and the docs. */
export function defineInput<const S extends InputShape>(name: string, shape: S): InputDeclaration<S> {
  return new InputDeclaration(name, shape);
}

/**
 * A socket payload that is one value rather than an object of fields: a bare value
 * (join_event_room's slug) or a payload checked as a whole by `f.parsed` (webrtc_signal). Its
 * type, its check and its documented schema come from the one field.
 *
 *   export const joinEventRoomInput = definePayload('joinEventRoom', f.parsed(schema, parseSlug));
 *   const slug = await parsePayload(joinEventRoomInput, payload);
 */
export class PayloadDeclaration<T> {
  private readonly declaration: InputDeclaration<{ body: { payload: Field<T> } }>;

  constructor(
    readonly name: string,
    private readonly field: Field<T>,
  ) {
    this.declaration = new InputDeclaration(name, { body: { payload: field } });
  }

  /** The payload's JSON schema (src/docs/socket.openapi.ts). */
  get schema(): Schema {
    return this.field.schema;
  }

  /** The checked value, or the field's own error (400 "Validation failed" for a chain's refusal). */
  async parse(payload: unknown): Promise<T> {
    return (await this.declaration.run({ body: { payload } })).payload as T;
  }
}

/** The checked value of a one-value payload declaration. */
export type PayloadOf<D> = D extends PayloadDeclaration<infer T> ? T : never;

/** Declares a one-value socket payload (see PayloadDeclaration). */
export function definePayload<T>(name: string, field: Field<T>): PayloadDeclaration<T> {
  return new PayloadDeclaration(name, field);
}
