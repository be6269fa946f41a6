import "server-only";
import type { Database, Queryable } from "@/db/client";
import { ID_PREFIX, isoSql, newId } from "@/db/schema";
import type { WriteIssue } from "@/lib/catalog/catalog-errors";
import {
  checkShape,
  checkValue,
  isPlainObject,
  refuse,
  type AttributeRow,
  type References,
  type ValueRow,
} from "./create-product-body";
import { checkUnique, skuTaken, unknownMedia, unknownOptions } from "./create-product-lookups";
import type { CreatedProduct, ProductDraft } from "@/lib/catalog/resources/schemas";
import { QUOTE_MAX, writeIssue } from "./write-issues";

// Creation of a product from a write request: { familyId, categoryId, values } parsed by the request's zod schemas
// (lib/catalog/writes/create-product-schema.ts) and checked against the organization's catalog (prepareProduct), then the
// product and its values inserted in one transaction (insertProduct; the products' version bumps by trigger). A dry
// run is the first step and the uniqueness checks, without the insert.

// A request that passed every check of prepareProduct: what insertProduct writes.
export interface PreparedProduct {
  familyId: string;
  categoryId: string;
  identifier: string;
  label: string;
  values: Record<string, unknown>;
  rows: ValueRow[];
}
// Validates a creation request of one organization, reading only: the body and each value by the request's schemas
// (checkShape, checkValue), then what only the database knows (attribute codes, channels, options, media, family,
// category, the family's rules). Throws CatalogWriteError for every refusal.
export async function prepareProduct(db: Queryable, orgId: string, body: unknown): Promise<PreparedProduct> {
  const req = checkShape(body);
  const codes = Object.keys(req.values);
  const attributes = await db.query<AttributeRow>(
    `select id, code, type, unique_value, is_scopable from attributes where org_id = $1 and code = any($2::text[])`,
    [orgId, codes],
  );
  const byCode = new Map(attributes.map((a) => [a.code, a]));
  const channels = new Set(
    (await db.query<{ id: string }>("select id from channels where org_id = $1", [orgId])).map((c) => c.id),
  );

  const issues: WriteIssue[] = [];
  const rows: ValueRow[] = [];
  const refs: References = { options: [], media: [] };
  for (const code of codes) {
    const a = byCode.get(code);
    const field = `values.${code.slice(0, QUOTE_MAX)}`;
    if (!a) {
      issues.push(writeIssue(field, "UNKNOWN_ATTRIBUTE", "attribute", code));
      continue;
    }
    const v = req.values[code];
    // A scopable attribute takes one value (every channel) or an object channel id → value.
    const scoped =
      a.is_scopable &&
      isPlainObject(v) &&
      Object.keys(v).length > 0 &&
      (a.type !== "PRICE" || Object.keys(v).every((k) => channels.has(k)));
    if (scoped) {
      for (const [ch, cv] of Object.entries(v)) {
        const f = `${field}.${ch.slice(0, QUOTE_MAX)}`;
        if (!channels.has(ch)) {
          issues.push(writeIssue(f, "UNKNOWN_CHANNEL", "channel", ch));
          continue;
        }
        checkValue(a, cv, f, issues, refs);
        rows.push({ attribute: a, channelId: ch, value: cv });
      }
    } else {
      checkValue(a, v, field, issues, refs);
      rows.push({ attribute: a, channelId: null, value: v });
    }
  }
  issues.push(
    ...(await unknownOptions(db, orgId, refs.options)),
    ...(await unknownMedia(db, orgId, refs.media)),
  );
  if (issues.length > 0) refuse("invalid", issues);

  const [family] = await db.query("select 1 from families where org_id = $1 and id = $2", [
    orgId,
    req.familyId,
  ]);
  if (!family) refuse("family_not_found", [writeIssue("familyId", "NOT_FOUND", "family")]);
  const [category] = await db.query("select 1 from categories where org_id = $1 and id = $2", [
    orgId,
    req.categoryId,
  ]);
  if (!category) refuse("category_not_found", [writeIssue("categoryId", "NOT_FOUND", "category")]);

  const expected = await db.query<{ attribute_id: string; code: string; is_required: boolean }>(
    `select fa.attribute_id, a.code, fa.is_required from family_attributes fa
       join attributes a on a.org_id = fa.org_id and a.id = fa.attribute_id
      where fa.org_id = $1 and fa.family_id = $2`,
    [orgId, req.familyId],
  );
  const inFamily = new Set(expected.map((e) => e.code));
  for (const code of codes)
    if (!inFamily.has(code)) issues.push(writeIssue(`values.${code}`, "NOT_IN_FAMILY", "attribute", code));
  for (const e of expected)
    if (e.is_required && !(e.code in req.values))
      issues.push(writeIssue(`values.${e.code}`, "REQUIRED", "attribute", e.code));
  const sku = req.values.sku;
  if (typeof sku !== "string" && !issues.some((i) => i.field === "values.sku"))
    issues.push(writeIssue("values.sku", "REQUIRED", "sku"));
  if (issues.length > 0) refuse("unprocessable", issues);

  const identifier = sku as string;
  return {
    familyId: req.familyId,
    categoryId: req.categoryId,
    identifier,
    label: labelOf(req.values.name) ?? identifier,
    values: req.values,
    rows,
  };
}

// A dry run: every check of a creation, the unique values included, and what would be created; nothing is written.
export async function draftProduct(db: Queryable, orgId: string, body: unknown): Promise<ProductDraft> {
  const p = await prepareProduct(db, orgId, body);
  await checkUnique(db, orgId, p.identifier, p.rows);
  return {
    dryRun: true,
    familyId: p.familyId,
    categoryId: p.categoryId,
    status: "draft",
    identifier: p.identifier,
    label: p.label,
    values: p.values,
  };
}

// Inserts a prepared product and its values in one transaction, after the uniqueness checks (409). `within` runs in
// the same transaction once the product is inserted (the Idempotency-Key's answer is stored with it).
export async function insertProduct(
  db: Database,
  orgId: string,
  p: PreparedProduct,
  within?: (tx: Queryable, created: CreatedProduct) => Promise<void>,
): Promise<CreatedProduct> {
  const { identifier, label, rows } = p;
  return db.transaction(async (tx) => {
    await checkUnique(tx, orgId, identifier, rows, true);
    const id = newId(ID_PREFIX.product);
    let created: { created_at: string } | undefined;
    try {
      [created] = await tx.query<{ created_at: string }>(
        `insert into products (id, org_id, identifier, label, status, family_id, category_id)
         values ($1, $2, $3, $4, 'draft', $5, $6) returning ${isoSql("created_at")} as created_at`,
        [id, orgId, identifier, label, p.familyId, p.categoryId],
      );
    } catch (err) {
      if ((err as { code?: string }).code === "23505") refuse("conflict", [skuTaken(identifier)]);
      throw err;
    }
    await tx.query(
      `insert into product_values (org_id, product_id, attribute_id, attribute_scopable, channel_id, value)
       select $1, $2, t.attribute_id, t.scopable, t.channel_id, t.value::jsonb
         from unnest($3::text[], $4::bool[], $5::text[], $6::text[]) as t(attribute_id, scopable, channel_id, value)`,
      [
        orgId,
        id,
        rows.map((r) => r.attribute.id),
        rows.map((r) => r.attribute.is_scopable),
        rows.map((r) => r.channelId),
        rows.map((r) => JSON.stringify(r.value)),
      ],
    );
    const answer: CreatedProduct = {
      id,
      familyId: p.familyId,
      categoryId: p.categoryId,
      status: "draft",
      createdAt: created!.created_at,
    };
    await within?.(tx, answer);
    return answer;
  });
}

// Validates and creates a product in one call (prepareProduct then insertProduct).
export async function createProduct(db: Database, orgId: string, body: unknown): Promise<CreatedProduct> {
  return insertProduct(db, orgId, await prepareProduct(db, orgId, body));
}

// The product's label: the name value, or its first channel's value when only scoped values are given.
function labelOf(name: unknown): string | undefined {
  if (typeof name === "string") return name;
  if (isPlainObject(name)) return Object.values(name).find((v): v is string => typeof v === "string");
  return undefined;
}
