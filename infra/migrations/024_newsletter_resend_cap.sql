-- Confirmation emails of a pending address in the last 24 hours (oldest first): besides one per 10 minutes, at most
-- three a day (core/newsletter/resend.ts), so a script cannot mail-bomb an address through an open sign-up form.
ALTER TABLE newsletter_subscriptions ADD COLUMN recent_sends timestamptz[] NOT NULL DEFAULT '{}';
UPDATE newsletter_subscriptions SET recent_sends = ARRAY[last_sent_at]
  WHERE last_sent_at IS NOT NULL AND last_sent_at > now() - interval '24 hours';
