-- Preview feature `details`: the options of SELECT and MULTI_SELECT attributes as rows of their own (read
-- by an attribute's detail, by the write preview's validation and by the seed), and a version of the channels list.
-- Runs on Postgres 15 (Debian) and on PGlite (Postgres 18).

create table if not exists attribute_options (
  org_id text not null,
  attribute_id text not null,
  code text collate "C" not null,
  label text not null,
  position integer not null default 0,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3) not null default now(),
  primary key (attribute_id, code),
  foreign key (org_id, attribute_id) references attributes (org_id, id) on delete cascade
);
create index if not exists attribute_options_order on attribute_options (org_id, attribute_id, position, code);

-- The options a database already uses: every code its products give a SELECT or MULTI_SELECT attribute, labelled
-- with the code itself (the seed gives the demo's their labels; the product-information application its own).
insert into attribute_options (org_id, attribute_id, code, label, position)
select org_id, attribute_id, code, code, row_number() over (partition by attribute_id order by code) - 1
  from (select distinct a.org_id, a.id as attribute_id, c.code
          from attributes a
          join product_values pv on pv.org_id = a.org_id and pv.attribute_id = a.id
         cross join lateral (
           select pv.value #>> '{}' as code where jsonb_typeof(pv.value) = 'string'
           union all
           select e from jsonb_array_elements_text(
             case when jsonb_typeof(pv.value) = 'array' then pv.value else '[]'::jsonb end) e
         ) c
         where a.type in ('SELECT', 'MULTI_SELECT') and c.code is not null) used
on conflict do nothing;

-- The channels list (GET /public/v1/channels) has its version like the other lists.
alter table catalog_resource_versions drop constraint if exists catalog_resource_versions_resource_check;
alter table catalog_resource_versions add constraint catalog_resource_versions_resource_check
  check (resource in ('products', 'families', 'attributes', 'categories', 'media', 'channels'));
insert into catalog_resource_versions (org_id, resource, version)
select org_id, 'channels', version from catalog_versions
on conflict do nothing;

-- Channels: their list on any change; products, as before (0011), when a channel goes or takes another id.
create or replace function catalog_versions_channels() returns trigger
  language plpgsql
  as $$
  begin
    if tg_op = 'INSERT' then
      perform catalog_versions_touch(array(select distinct org_id from catalog_new_rows), array['channels']);
    elsif tg_op = 'DELETE' then
      perform catalog_versions_touch(array(select distinct org_id from catalog_old_rows),
                                     array['channels', 'products']);
    else
      perform catalog_versions_touch(
        array(select org_id from catalog_old_rows union select org_id from catalog_new_rows), array['channels']);
      perform catalog_versions_touch(
        array(select org_id
                from (select org_id, id from catalog_old_rows except select org_id, id from catalog_new_rows) d),
        array['products']);
    end if;
    return null;
  end $$;

drop trigger if exists channels_resource_versions_trunc on channels;
create trigger channels_resource_versions_trunc after truncate on channels
  for each statement execute function catalog_versions_truncate('channels', 'products');

-- The seed's bump (after loading without triggers): every resource, the channels list included.
create or replace function catalog_bump_versions(orgs text[]) returns void
  language sql
  as $$
    select catalog_versions_bump(array(
      select r || '/' || o from unnest(orgs) o
       cross join unnest(array['products', 'families', 'attributes', 'categories', 'media', 'channels']) r))
  $$;
