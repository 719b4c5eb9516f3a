-- The journeys list's run counts (issue 27), kept as the runs are written instead of counted on every read: counting
-- a page's runs walked every run of its journeys (300,000 runs of 5 journeys: 640-790 ms on the 2-core machine under
-- load), and a journey keeps every run it ever started. The list now sums at most 64 rows per journey.
--
-- Kept by triggers on journey_runs, so every writer (the journey actor's upsert, the privacy erasure's delete, a
-- future maintenance path) keeps it exact in its own transaction: the counts are the runs as they are, as before.
-- Statement-level triggers with transition tables fold a statement's rows into one upsert per journey, in journey
-- order. Each backend writes its own slot (its process id modulo 64): two transactions counting runs of one journey
-- do not queue on one row, and two that share a slot take their rows in the same order, so they wait, never deadlock.
CREATE TABLE journey_run_counts (
  journey_id  uuid NOT NULL,
  slot        smallint NOT NULL,
  tenant_id   uuid NOT NULL,
  entered     bigint NOT NULL DEFAULT 0,
  -- active or waiting: a live run (`active` is the moment a step runs, between two waits)
  live        bigint NOT NULL DEFAULT 0,
  completed   bigint NOT NULL DEFAULT 0,
  stopped     bigint NOT NULL DEFAULT 0,
  failed      bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (journey_id, slot)
);

ALTER TABLE journey_run_counts ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON journey_run_counts
  USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid)
  WITH CHECK (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid);

-- A statement's runs as signed changes: +1 a run that arrived in a state (inserted, or moved into it), -1 one that
-- left it (deleted, or moved out). `entered` is the net of the inserts and deletes; a move nets to zero there.
CREATE TYPE journey_run_change AS (journey_id uuid, tenant_id uuid, state text, sign int);

CREATE FUNCTION journey_run_counts_add(changes journey_run_change[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO journey_run_counts AS c (journey_id, slot, tenant_id, entered, live, completed, stopped, failed)
  SELECT journey_id, (pg_backend_pid() % 64)::smallint, tenant_id, sum(sign),
    coalesce(sum(sign) FILTER (WHERE state IN ('active', 'waiting')), 0),
    coalesce(sum(sign) FILTER (WHERE state = 'completed'), 0),
    coalesce(sum(sign) FILTER (WHERE state = 'stopped'), 0),
    coalesce(sum(sign) FILTER (WHERE state = 'failed'), 0)
  FROM unnest(changes)
  GROUP BY journey_id, tenant_id
  ORDER BY journey_id
  ON CONFLICT (journey_id, slot) DO UPDATE SET entered = c.entered + excluded.entered, live = c.live + excluded.live,
    completed = c.completed + excluded.completed, stopped = c.stopped + excluded.stopped, failed = c.failed + excluded.failed
$$;

CREATE FUNCTION journey_runs_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM journey_run_counts_add(array(SELECT (journey_id, tenant_id, state, 1)::journey_run_change FROM new_runs));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM journey_run_counts_add(array(SELECT (journey_id, tenant_id, state, -1)::journey_run_change FROM old_runs));
  ELSE
    -- Most updates keep the state (a wait published, a step taken): only the moves count.
    PERFORM journey_run_counts_add(array(
      SELECT x FROM new_runs n JOIN old_runs o ON o.id = n.id
      CROSS JOIN LATERAL (VALUES ((n.journey_id, n.tenant_id, n.state, 1)::journey_run_change),
                                 ((o.journey_id, o.tenant_id, o.state, -1)::journey_run_change)) v(x)
      WHERE o.state <> n.state));
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER journey_runs_counted_insert AFTER INSERT ON journey_runs
  REFERENCING NEW TABLE AS new_runs FOR EACH STATEMENT EXECUTE FUNCTION journey_runs_counted();
CREATE TRIGGER journey_runs_counted_update AFTER UPDATE ON journey_runs
  REFERENCING OLD TABLE AS old_runs NEW TABLE AS new_runs FOR EACH STATEMENT EXECUTE FUNCTION journey_runs_counted();
CREATE TRIGGER journey_runs_counted_delete AFTER DELETE ON journey_runs
  REFERENCING OLD TABLE AS old_runs FOR EACH STATEMENT EXECUTE FUNCTION journey_runs_counted();

-- The runs already there, counted once in slot 0 (no run is written meanwhile: the lock holds writers until commit).
LOCK TABLE journey_runs IN SHARE ROW EXCLUSIVE MODE;
INSERT INTO journey_run_counts (journey_id, slot, tenant_id, entered, live, completed, stopped, failed)
SELECT journey_id, 0, tenant_id, count(*), count(*) FILTER (WHERE state IN ('active', 'waiting')),
  count(*) FILTER (WHERE state = 'completed'), count(*) FILTER (WHERE state = 'stopped'), count(*) FILTER (WHERE state = 'failed')
FROM journey_runs GROUP BY journey_id, tenant_id;

-- The per-state index was for counting; the list no longer walks it (and a state change no longer writes it).
DROP INDEX journey_runs_journey_state;
