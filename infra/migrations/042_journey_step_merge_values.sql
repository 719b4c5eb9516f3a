-- The run inspector (issue 27): a message step keeps the merge-tag values (email) or template parameter values
-- (WhatsApp) it rendered with, { "contact_first_name": "Ana" }, written by the same INSERT that logs the step. Guest
-- data: the privacy store "journeys" deletes a contact's step rows on erasure, this column with them. Nullable without
-- a default, so adding it rewrites nothing; other steps leave it null.
ALTER TABLE journey_run_steps ADD COLUMN merge_values jsonb;
