-- Request counts per rate-limit bucket (API key, or tenant for telephony) and one-minute window, shared by every
-- ingress process: each adds its local counts every half second and reads back the cluster's total.
CREATE TABLE rate_counters (
  bucket        text NOT NULL,
  window_start  timestamptz NOT NULL,
  count         bigint NOT NULL,
  PRIMARY KEY (bucket, window_start)
);
