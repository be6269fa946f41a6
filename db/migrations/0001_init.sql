-- Public Catalog API: initial schema.
-- Runs on Postgres 15 (Debian) and on PGlite (Postgres 18). Every catalog table carries org_id,
-- every index that serves a list starts with it, and references between catalog rows are
-- composite (org_id, id) so that a row can never point into another organization.

create extension if not exists pg_trgm;
create extension if not exists unaccent;
create extension if not exists btree_gin;

-- Lower-case, accent-free form of a text, for search and for deterministic sorting.
create or replace function catalog_fold(t text) returns text
  language sql immutable parallel safe strict
  as $$ select lower(public.unaccent('public.unaccent'::regdictionary, t)) $$;

create table if not exists organizations (
  id text primary key,
  slug text collate "C" not null unique,
  name text not null,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3) not null default now()
);

create table if not exists channels (
  id text primary key,
  org_id text not null references organizations (id) on delete cascade,
  code text collate "C" not null,
  label text not null,
  locale text not null default 'fr_FR',
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3) not null default now(),
  unique (org_id, code),
  unique (org_id, id)
);

create table if not exists families (
  id text primary key,
  org_id text not null references organizations (id) on delete cascade,
  slug text collate "C" not null,
  code text collate "C" not null,
  label text not null,
  label_sort text collate "C" generated always as (catalog_fold(label)) stored,
  search text generated always as (catalog_fold(code) || chr(31) || catalog_fold(slug) || chr(31) || catalog_fold(label)) stored,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3) not null default now(),
  unique (org_id, code),
  unique (org_id, slug),
  unique (org_id, id)
);
create index if not exists families_org_updated on families (org_id, updated_at, id);
create index if not exists families_org_label on families (org_id, label_sort, id);
create index if not exists families_search on families using gin (org_id, search gin_trgm_ops);

create table if not exists attributes (
  id text primary key,
  org_id text not null references organizations (id) on delete cascade,
  slug text collate "C" not null,
  code text collate "C" not null,
  label text not null,
  label_sort text collate "C" generated always as (catalog_fold(label)) stored,
  search text generated always as (catalog_fold(code) || chr(31) || catalog_fold(slug) || chr(31) || catalog_fold(label)) stored,
  type text collate "C" not null
    check (type in ('TEXT', 'TEXTAREA', 'NUMBER', 'PRICE', 'BOOLEAN', 'DATE', 'SELECT', 'MULTI_SELECT', 'MEDIA')),
  unique_value boolean not null default false,
  is_scopable boolean not null default false,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3) not null default now(),
  unique (org_id, code),
  unique (org_id, slug),
  unique (org_id, id),
  unique (org_id, id, is_scopable)
);
create index if not exists attributes_org_updated on attributes (org_id, updated_at, id);
create index if not exists attributes_org_label on attributes (org_id, label_sort, id);
create index if not exists attributes_org_type on attributes (org_id, type, id);
create index if not exists attributes_search on attributes using gin (org_id, search gin_trgm_ops);

-- Which attributes a family expects, and which of them are required.
create table if not exists family_attributes (
  org_id text not null,
  family_id text not null,
  attribute_id text not null,
  is_required boolean not null default false,
  position integer not null default 0,
  primary key (family_id, attribute_id),
  foreign key (org_id, family_id) references families (org_id, id) on delete cascade,
  foreign key (org_id, attribute_id) references attributes (org_id, id) on delete cascade
);
create index if not exists family_attributes_attribute on family_attributes (org_id, attribute_id, family_id);

create table if not exists categories (
  id text primary key,
  org_id text not null references organizations (id) on delete cascade,
  slug text collate "C" not null,
  label text not null,
  label_sort text collate "C" generated always as (catalog_fold(label)) stored,
  search text generated always as (catalog_fold(slug) || chr(31) || catalog_fold(label)) stored,
  parent_id text,
  is_master boolean not null default false,
  position integer not null default 0,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3) not null default now(),
  unique (org_id, slug),
  unique (org_id, id),
  foreign key (org_id, parent_id) references categories (org_id, id) on delete cascade,
  check (parent_id is null or parent_id <> id)
);
create index if not exists categories_org_updated on categories (org_id, updated_at, id);
create index if not exists categories_org_label on categories (org_id, label_sort, id);
create index if not exists categories_org_parent on categories (org_id, parent_id, updated_at, id);
create index if not exists categories_search on categories using gin (org_id, search gin_trgm_ops);

create table if not exists products (
  id text primary key,
  org_id text not null references organizations (id) on delete cascade,
  identifier text collate "C" not null,
  label text not null,
  label_sort text collate "C" generated always as (catalog_fold(label)) stored,
  search text generated always as (catalog_fold(identifier) || chr(31) || catalog_fold(label)) stored,
  status text collate "C" not null default 'draft' check (status in ('draft', 'published', 'archived')),
  family_id text not null,
  category_id text not null,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3) not null default now(),
  unique (org_id, identifier),
  unique (org_id, id),
  foreign key (org_id, family_id) references families (org_id, id),
  foreign key (org_id, category_id) references categories (org_id, id)
);
create index if not exists products_org_updated on products (org_id, updated_at, id);
create index if not exists products_org_label on products (org_id, label_sort, id);
create index if not exists products_org_status on products (org_id, status, id);
create index if not exists products_org_family on products (org_id, family_id, updated_at, id);
create index if not exists products_org_category on products (org_id, category_id, updated_at, id);
create index if not exists products_search on products using gin (org_id, search gin_trgm_ops);

-- Attribute values of a product; channel_id is set only for scopable attributes (null: every channel).
create table if not exists product_values (
  org_id text not null,
  product_id text not null,
  attribute_id text not null,
  attribute_scopable boolean not null default false,
  channel_id text,
  value jsonb not null,
  updated_at timestamptz(3) not null default now(),
  foreign key (org_id, product_id) references products (org_id, id) on delete cascade,
  foreign key (org_id, attribute_id, attribute_scopable)
    references attributes (org_id, id, is_scopable) on update cascade on delete cascade,
  foreign key (org_id, channel_id) references channels (org_id, id) on delete cascade,
  check (channel_id is null or attribute_scopable)
);
create unique index if not exists product_values_unique
  on product_values (product_id, attribute_id, coalesce(channel_id, ''));

create table if not exists media (
  id text primary key,
  org_id text not null references organizations (id) on delete cascade,
  slug text collate "C" not null,
  original_name text not null,
  original_name_sort text collate "C" generated always as (catalog_fold(original_name)) stored,
  type text collate "C" not null check (type in ('IMAGE', 'VIDEO', 'DOCUMENT')),
  category text not null,
  category_sort text collate "C" generated always as (catalog_fold(category)) stored,
  search text generated always as (catalog_fold(original_name) || chr(31) || catalog_fold(slug) || chr(31) || catalog_fold(category)) stored,
  file_name text not null,
  mime_type text not null,
  size_bytes integer not null default 0,
  is_public boolean not null default true,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3) not null default now(),
  unique (org_id, slug),
  unique (org_id, id)
);
create index if not exists media_org_updated on media (org_id, updated_at, id);
create index if not exists media_org_name on media (org_id, original_name_sort, id);
create index if not exists media_org_type on media (org_id, type, id);
create index if not exists media_org_category on media (org_id, category_sort, id);
create index if not exists media_search on media using gin (org_id, search gin_trgm_ops);

-- What a media is attached to (exactly one of product, category, family); a media without a row is an orphan.
create table if not exists media_links (
  org_id text not null,
  media_id text not null,
  product_id text,
  category_id text,
  family_id text,
  position integer not null default 0,
  foreign key (org_id, media_id) references media (org_id, id) on delete cascade,
  foreign key (org_id, product_id) references products (org_id, id) on delete cascade,
  foreign key (org_id, category_id) references categories (org_id, id) on delete cascade,
  foreign key (org_id, family_id) references families (org_id, id) on delete cascade,
  check (num_nonnulls(product_id, category_id, family_id) = 1)
);
create index if not exists media_links_media on media_links (org_id, media_id);
create index if not exists media_links_product on media_links (org_id, product_id) where product_id is not null;

-- Portal accounts.
create table if not exists users (
  id text primary key,
  email text collate "C" not null unique,
  name text not null,
  password_hash text,
  is_staff boolean not null default false,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3) not null default now()
);

create table if not exists memberships (
  user_id text not null references users (id) on delete cascade,
  org_id text not null references organizations (id) on delete cascade,
  role text not null check (role in ('owner', 'admin', 'member')),
  created_at timestamptz(3) not null default now(),
  primary key (org_id, user_id)
);
create index if not exists memberships_user on memberships (user_id);

-- API keys: only the SHA-256 of the secret is stored; prefix is the short display form.
create table if not exists api_keys (
  id text primary key,
  org_id text not null references organizations (id) on delete cascade,
  name text not null,
  prefix text not null,
  key_hash text collate "C" not null unique,
  scopes text[] not null check (cardinality(scopes) > 0),
  created_by text references users (id) on delete set null,
  created_at timestamptz(3) not null default now(),
  expires_at timestamptz(3),
  revoked_at timestamptz(3),
  last_used_at timestamptz(3)
);
create index if not exists api_keys_org on api_keys (org_id, created_at, id);

-- Changelog entries published by the product team (rendered by the portal, with feeds).
create table if not exists changelog_entries (
  id text primary key,
  slug text collate "C" not null unique,
  title text not null,
  published_on date not null,
  type text not null check (type in ('Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security')),
  breaking boolean not null default false,
  endpoints text[] not null default '{}',
  body_md text not null default '',
  is_planned boolean not null default false,
  created_by text references users (id) on delete set null,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3) not null default now()
);
create index if not exists changelog_entries_published on changelog_entries (published_on desc, id);
