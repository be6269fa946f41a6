-- Write preview: the Idempotency-Key of a product creation, per API key, kept 24 h.
-- Runs on Postgres 15 (Debian) and on PGlite (Postgres 18).

-- A claim is inserted (status null) before the creation runs; the creation's own transaction writes the answer into
-- it, so a product and the answer that reports it are committed together or not at all. A claim left without an
-- answer (its process died) is taken over once its lease has run out.
create table if not exists idempotency_keys (
  api_key_id text not null references api_keys (id) on delete cascade,
  key text collate "C" not null,
  -- SHA-256 of the request (method, path, body): the same key with another body is refused.
  request_hash text not null,
  claimed_at timestamptz(3) not null default now(),
  -- The stored answer, null while the first request runs.
  status integer,
  response_body text,
  location text,
  created_at timestamptz(3) not null default now(),
  primary key (api_key_id, key)
);
-- The purge of keys past 24 h reads this index.
create index if not exists idempotency_keys_created on idempotency_keys (created_at);
