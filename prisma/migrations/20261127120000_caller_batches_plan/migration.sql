-- The callers of a batched per-caller read (`sql(…, { perCaller })` in src/lib/sql.ts): the ids
-- of the array, as unnest gives them, estimated as one row. PostgreSQL estimates unnest of a
-- parameter at 10 rows, so the generic plan of a batched statement looked costlier than the
-- custom plans of the one to three callers a batch usually holds, and it planned every
-- execution again: at 3 000 dancers the planning of these statements took more of
-- PostgreSQL's CPU than running them (docs/event-day.md). Estimated as one row, the generic
-- plan (a nested loop over the callers) is kept after the fifth execution on a connection.
-- PL/pgSQL, so that the planner never inlines it and takes unnest's estimate again.
CREATE FUNCTION wcs_callers(ids int[]) RETURNS SETOF int
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE ROWS 1 AS $$
BEGIN
  RETURN QUERY SELECT unnest(ids);
END
$$;
