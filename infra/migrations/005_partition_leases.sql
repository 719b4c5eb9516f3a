-- Partition ownership across worker processes: one owner per (namespace, actor, partition) at a time.
-- The epoch grows with every acquisition and is checked inside each state transaction (fencing), so a paused or
-- cut-off former owner cannot commit after losing its lease.
CREATE TABLE partition_leases (
  namespace   text NOT NULL,
  actor       text NOT NULL,
  partition   integer NOT NULL,
  owner       text,
  epoch       bigint NOT NULL DEFAULT 0,
  expires_at  timestamptz NOT NULL DEFAULT '-infinity',
  PRIMARY KEY (namespace, actor, partition)
);

-- Worker membership: live workers share the partitions by rendezvous hashing.
CREATE TABLE worker_heartbeats (
  namespace     text NOT NULL,
  worker_id     text NOT NULL,
  heartbeat_at  timestamptz NOT NULL DEFAULT now(),
  started_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (namespace, worker_id)
);

-- Which owner and epoch applied each envelope: lets an operator (and the fencing test) see who committed what.
ALTER TABLE inbox ADD COLUMN owner text, ADD COLUMN epoch bigint;
