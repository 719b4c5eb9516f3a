-- What the message sender decides at send time for a broadcast's message (issue 25 item 6).

-- Quiet hours hold a broadcast message until the recipient's local window ends: the message is recorded as queued at
-- once (its recipient is settled, the decision is made once) and is not handed to a provider before `not_before`.
-- NULL for every other message: sent as soon as the deliverer takes it.
ALTER TABLE messages ADD COLUMN not_before timestamptz;

-- A held message gets no deliver command when it is recorded: thousands of commands waiting hours on the delivery
-- consumer would fill its unacked window (max_ack_pending) and stall every other message of the channel. The
-- deployment whose sweep releases it (its deliver command written then) is named here, and cleared on release.
ALTER TABLE messages ADD COLUMN hold_namespace text;
CREATE INDEX messages_held ON messages (hold_namespace, not_before) WHERE hold_namespace IS NOT NULL;

-- The marketing frequency cap per contact and channel, in hours: NULL is the default (16 h, Klaviyo's Smart Sending
-- window), 0 turns the cap off. Account configuration shared by live and sandbox, like the rest of tenant_settings.
ALTER TABLE tenant_settings
  ADD COLUMN IF NOT EXISTS marketing_cap_hours integer CHECK (marketing_cap_hours BETWEEN 0 AND 8760);
