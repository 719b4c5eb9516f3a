-- One outbox row can carry every message of a group's tenant phase (a msgpack array of {id, subject, data}): an
-- actor transaction writes one row instead of one per message, and the relay marks one row per group. Each message
-- keeps its own id as its Nats-Msg-Id, so consumers see exactly what they saw before.
ALTER TABLE outbox ADD COLUMN batch boolean NOT NULL DEFAULT false;
