-- Key changes broadcast to every instance (docs/design.md, Keys and scopes: a revocation refused everywhere at once, not after the key
-- cache's TTL). Whoever writes (the console, the keys CLI, plain SQL), a change to what the pipeline checks of a key
-- (revoked, expiry, scopes, hash, organization) or its deletion notifies the channel `api_keys` with the key's id,
-- sent at commit; each instance forgets that key (lib/keys/broadcast.ts). A lost notification leaves the TTL as the
-- bound, and an instance whose listening connection was lost forgets every key when it listens again.
-- Runs on Postgres 15 (Debian) and on PGlite (Postgres 18).

create or replace function api_keys_broadcast() returns trigger
  language plpgsql
  as $$
  begin
    perform pg_notify('api_keys', old.id);
    return null;
  end;
  $$;

drop trigger if exists api_keys_broadcast_update on api_keys;
create trigger api_keys_broadcast_update
  after update on api_keys
  for each row
  when (old.revoked_at is distinct from new.revoked_at
     or old.expires_at is distinct from new.expires_at
     or old.scopes is distinct from new.scopes
     or old.key_hash is distinct from new.key_hash
     or old.org_id is distinct from new.org_id)
  execute function api_keys_broadcast();

drop trigger if exists api_keys_broadcast_delete on api_keys;
create trigger api_keys_broadcast_delete
  after delete on api_keys
  for each row
  execute function api_keys_broadcast();
