-- The contact a webhook event is about (when its data names one), so a contact's timeline lists the webhooks emitted
-- about it (GET /api/v1/contacts/{contact_id}/timeline, kind `webhook`). Set by the fan-out as it records the body.
ALTER TABLE webhook_events ADD COLUMN contact_id uuid;
CREATE INDEX webhook_events_contact ON webhook_events (tenant_id, sandbox, contact_id, emitted_at DESC)
  WHERE contact_id IS NOT NULL;
