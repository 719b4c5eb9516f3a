-- What the message sender decides at send time for a broadcast's message (issue 25 item 6).

-- Quiet hours hold a broadcast message until the recipient's local window ends: the message is recorded as queued at
-- once (its recipient is settled, the decision is made once) and the deliverer does not call the provider before
-- `not_before`. NULL for every other message: sent as soon as the deliverer takes it.
ALTER TABLE messages ADD COLUMN not_before timestamptz;

-- The marketing frequency cap per contact and channel, in hours: NULL is the default (16 h, Klaviyo's Smart Sending
-- window), 0 turns the cap off. Account configuration shared by live and sandbox, like the rest of tenant_settings.
ALTER TABLE tenant_settings
  ADD COLUMN IF NOT EXISTS marketing_cap_hours integer CHECK (marketing_cap_hours BETWEEN 0 AND 8760);
