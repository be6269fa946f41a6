-- Changelog editor: the product team writes entries in the console as drafts and publishes them.
-- Runs on Postgres 15 (Debian) and on PGlite (Postgres 18).

-- A draft is seen only in the console; the portal, its feeds and its search show published entries. Every entry
-- that existed before (the seeded ones of 0002) is published, unchanged.
alter table changelog_entries
  add column if not exists status text not null default 'published' check (status in ('draft', 'published'));

-- Who wrote the entry and when it last changed (0001 already creates them; kept here for databases that lack them).
alter table changelog_entries add column if not exists created_by text references users (id) on delete set null;
alter table changelog_entries add column if not exists created_at timestamptz(3) not null default now();
alter table changelog_entries add column if not exists updated_at timestamptz(3) not null default now();
