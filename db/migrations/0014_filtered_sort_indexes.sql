-- Products of one family or one category sorted by label or identifier (found by the bench's multi-tenant
-- mix). A family's products are not spread along the organization's label or identifier order: their labels start
-- with the family's nouns and their SKUs with its prefix. Postgres, estimating them spread evenly, walked the
-- organization's label index and met the family's first products after 841,856 others (1.05 s on the million: a
-- 503). These indexes hold each family's and each category's products in those orders, so such a page reads its
-- rows and no others. Runs on Postgres 15 (Debian) and on PGlite (Postgres 18).
create index if not exists products_org_family_label on products (org_id, family_id, label_sort, id);
create index if not exists products_org_family_identifier on products (org_id, family_id, identifier, id);
create index if not exists products_org_category_label on products (org_id, category_id, label_sort, id);
create index if not exists products_org_category_identifier on products (org_id, category_id, identifier, id);
