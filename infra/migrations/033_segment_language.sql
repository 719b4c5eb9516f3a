-- The segment language (issue 25): what its SQL compiler (core/segment/toSql.ts) relies on.

-- The broadcast a message was sent for (broadcasts come next): `received { broadcast_id }` reads it.
ALTER TABLE messages ADD COLUMN broadcast_id uuid;

-- "Who got broadcast B" (and `received { broadcast_id, negate }` over a whole audience, which the planner runs as an
-- anti-join over this broadcast's rows rather than a probe per contact). Partial: journeys' and API sends have none.
CREATE INDEX messages_broadcast ON messages (tenant_id, sandbox, broadcast_id, contact_id) WHERE broadcast_id IS NOT NULL;

-- Custom date and date-time values are jsonb strings checked by the guests API when written, but a definition can
-- change type after values were stored: a segment must read such a value as missing, never fail the whole count on a
-- cast error. PostgreSQL 15 has no pg_input_is_valid, hence the exception blocks. The patterns are the TypeScript
-- evaluator's (core/segment/time.ts), so both read the same strings as dates.
CREATE FUNCTION segment_date(s text) RETURNS date LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  IF s !~ '^[1-9][0-9]{3}-[0-9]{2}-[0-9]{2}$' THEN RETURN NULL; END IF;
  RETURN s::date;
EXCEPTION WHEN others THEN RETURN NULL;
END $$;

CREATE FUNCTION segment_timestamptz(s text) RETURNS timestamptz LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
  IF s !~ '^[1-9][0-9]{3}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,9})?)?(Z|[+-][0-9]{2}:?[0-9]{2})$' THEN
    RETURN NULL;
  END IF;
  RETURN s::timestamptz;
EXCEPTION WHEN others THEN RETURN NULL;
END $$;
