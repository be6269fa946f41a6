-- Media of one type in each documented order (found by the bench's big-catalog mix), as 0014 did for a family's
-- products. A type's media are not spread along the organization's orders: documents gather in their own categories.
-- Postgres, estimating them spread evenly, walked media_org_category and met the 4,100 documents of page 41 after
-- 460,000 other media (962 ms on 690,000 media, a 503 under load). These indexes hold each type's media in each order
-- (the type order itself is media_org_type), and the public orphans (media_org_orphans holds them by date) in the
-- other orders and of one type by date, so such a page reads its rows and no others. Only public media are listed:
-- a deep page's ids then come from the index alone (the deferred join). Runs on Postgres 15 (Debian) and on PGlite
-- (Postgres 18).
create index if not exists media_org_type_name on media (org_id, type, original_name_sort, id) where is_public;
create index if not exists media_org_type_slug on media (org_id, type, slug, id) where is_public;
create index if not exists media_org_type_category on media (org_id, type, category_sort, id) where is_public;
create index if not exists media_org_type_updated on media (org_id, type, updated_at, id) where is_public;
create index if not exists media_org_type_orphans on media (org_id, type, updated_at, id)
  where link_count = 0 and is_public;
create index if not exists media_org_orphans_name on media (org_id, original_name_sort, id)
  where link_count = 0 and is_public;
create index if not exists media_org_orphans_slug on media (org_id, slug, id) where link_count = 0 and is_public;
create index if not exists media_org_orphans_type on media (org_id, type, id) where link_count = 0 and is_public;
create index if not exists media_org_orphans_category on media (org_id, category_sort, id)
  where link_count = 0 and is_public;
