import "server-only";
import type { Database, Queryable } from "@/db/client";
import { ID_PREFIX, isoSql, newId, type AttributeType } from "@/db/schema";
import type { z } from "zod";
import {
  attributeValueSchemas,
  createProductBodySchema,
  CREATE_TOP_LEVEL,
  currencies,
  PRECISION_ISSUE,
  TEXT_MAX,
  TEXTAREA_MAX,
  type CreateProductBody,
} from "./create-product-schema";
import { CatalogWriteError, type WriteIssue, type WriteRefusal } from "./catalog-errors";
import { OPTIONS_QUOTED, QUOTE_MAX, writeIssue } from "./write-issues";
import type { CreatedProduct, ProductDraft } from "./schemas";

// Creation of a product from a write request: { familyId, categoryId, values } parsed by the request's zod schemas
// (lib/catalog/create-product-schema.ts) and checked against the organization's catalog (prepareProduct), then the
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

interface AttributeRow {
  id: string;
  code: string;
  type: string;
  unique_value: boolean;
  is_scopable: boolean;
}

// One value to insert: attribute, channel (null: every channel), JSON value.
interface ValueRow {
  attribute: AttributeRow;
  channelId: string | null;
  value: unknown;
}

const refuse = (refusal: WriteRefusal, issues: WriteIssue[]): never => {
  throw new CatalogWriteError(refusal, issues);
};

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

// The bound of each text type, quoted by INVALID_LENGTH.
const TEXT_MAXES: Partial<Record<string, number>> = { TEXT: TEXT_MAX, TEXTAREA: TEXTAREA_MAX };

// The option and media references of the values, checked against the database once every value is read.
interface References {
  options: { attribute: AttributeRow; code: string; field: string }[];
  media: { id: string; field: string }[];
}

// Checks one (unscoped) value with its attribute type's schema (attributeValueSchemas) and pushes what is wrong, in
// the answer's words: one detail for the value, or one per currency of a PRICE. Option and media references of a
// valid value are collected for a check against the database.
function checkValue(
  a: AttributeRow,
  v: unknown,
  field: string,
  issues: WriteIssue[],
  refs: References,
): void {
  const schema = attributeValueSchemas[a.type as AttributeType] as z.ZodType | undefined;
  const parsed = schema?.safeParse(v);
  if (!parsed) return void issues.push(writeIssue(field, "INVALID_TYPE", "value", a.code, a.type));
  if (parsed.success) {
    if (a.type === "SELECT") refs.options.push({ attribute: a, code: v as string, field });
    if (a.type === "MULTI_SELECT")
      (v as string[]).forEach((code, i) => refs.options.push({ attribute: a, code, field: `${field}.${i}` }));
    if (a.type === "MEDIA")
      for (const [i, id] of (typeof v === "string" ? [v] : (v as string[])).entries())
        refs.media.push({ id, field: typeof v === "string" ? field : `${field}.${i}` });
    return;
  }
  const perCurrency = new Map<string, WriteIssue>();
  for (const i of parsed.error.issues) {
    const cur = a.type === "PRICE" && i.path.length > 0 ? String(i.path[0]) : undefined;
    if (cur === undefined) {
      // The value itself: a text of the wrong length is its own code, anything else a value of the wrong type.
      const max = TEXT_MAXES[a.type];
      return void issues.push(
        max !== undefined && i.code !== "invalid_type"
          ? writeIssue(field, "INVALID_LENGTH", "text", a.code, max)
          : writeIssue(field, "INVALID_TYPE", "value", a.code, a.type),
      );
    }
    // One detail per currency: an unknown currency (its amount is not read), else a wrong amount, else its decimals.
    const f = `${field}.${cur}`;
    if (i.code === "invalid_key") perCurrency.set(cur, writeIssue(f, "UNKNOWN_CURRENCY", "currency", cur));
    else if (i.code === "custom" && i.params?.code === PRECISION_ISSUE) {
      if (!perCurrency.has(cur))
        perCurrency.set(cur, writeIssue(f, "INVALID_PRECISION", "amount", cur, currencies().get(cur)!));
    } else perCurrency.set(cur, writeIssue(f, "INVALID_TYPE", "amount"));
  }
  // In the value's key order, as the body gave them.
  for (const cur of Object.keys(v as object)) if (perCurrency.has(cur)) issues.push(perCurrency.get(cur)!);
}

// Text Postgres cannot store (in text or jsonb): NUL, and a UTF-16 surrogate without its pair (both arrive as JSON
// escapes, "\u0000", "\ud800").
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

// Where a value of the body is: its key under its parent's place (the body itself has none). A path is spelled out
// only for an issue, so that a deep body costs no string per level.
interface Place {
  parent: Place | undefined;
  key: string;
}
const pathOf = (place: Place | undefined): string => {
  const keys: string[] = [];
  for (let p = place; p; p = p.parent) keys.push(p.key);
  return keys.reverse().join(".");
};

// The places of a body (keys and strings, at any depth) holding text that cannot be stored: at most 20, in document
// order. Walked with a stack of its own: a body nested deeper than the call stack (3,000 levels overflowed the
// recursive walk this replaces) cannot make it throw; the API refuses bodies deeper than 32 levels before this anyway.
function unstorableText(body: unknown): WriteIssue[] {
  const issues: WriteIssue[] = [];
  const stack: [value: unknown, place: Place | undefined][] = [[body, undefined]];
  while (stack.length > 0 && issues.length < 20) {
    const [v, place] = stack.pop()!;
    if (typeof v === "string") {
      if (UNSTORABLE.test(v))
        issues.push(
          writeIssue(
            pathOf(place).replace(UNSTORABLE, "?").slice(0, QUOTE_MAX) || "body",
            "INVALID_TEXT",
            "text",
          ),
        );
      continue;
    }
    const children: [unknown, Place][] = [];
    if (Array.isArray(v)) v.forEach((x, i) => children.push([x, { parent: place, key: String(i) }]));
    else if (isPlainObject(v)) {
      // A key that cannot be stored is the issue at its place (the key, a string, is what is checked there); its
      // value is not looked into.
      for (const [k, x] of Object.entries(v))
        children.push([UNSTORABLE.test(k) ? k : x, { parent: place, key: k }]);
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return issues;
}

// Parses the request with createProductBodySchema: a JSON object with familyId, categoryId and values, nothing else,
// and no text Postgres cannot store. The zod issues become the answer's details; those about one entry of `values`
// are left to its attribute's schema (checkValue), which prepareProduct applies once the attribute is read: the type
// decides what the value must be, and an unknown code is UNKNOWN_ATTRIBUTE whatever its value.
function checkShape(body: unknown): CreateProductBody {
  const parsed = createProductBodySchema.safeParse(body);
  const zodIssues = parsed.error?.issues ?? [];
  if (zodIssues.some((i) => i.path.length === 0 && i.code === "invalid_type"))
    refuse("invalid", [writeIssue("body", "INVALID_TYPE", "body")]);
  const b = body as Record<string, unknown>;
  const unstorable = unstorableText(b);
  if (unstorable.length > 0) refuse("invalid", unstorable);
  const unknown: WriteIssue[] = [];
  const byField = new Map<string, WriteIssue>();
  for (const i of zodIssues) {
    if (i.code === "unrecognized_keys") {
      for (const k of i.keys)
        unknown.push(
          k === "organizationId"
            ? writeIssue(k, "FORBIDDEN_FIELD", "organizationId")
            : writeIssue(k.slice(0, QUOTE_MAX), "UNKNOWN_FIELD", "field", k),
        );
      continue;
    }
    const [name, code] = i.path.map(String);
    if (name === undefined || code !== undefined) continue; // an entry of values: checkValue's
    byField.set(
      name,
      b[name] === undefined
        ? writeIssue(name, "REQUIRED", "field", name)
        : name === "values"
          ? writeIssue(name, "INVALID_TYPE", "values")
          : writeIssue(name, "INVALID_TYPE", "id", name),
    );
  }
  const issues = [...unknown, ...CREATE_TOP_LEVEL.flatMap((k) => byField.get(k) ?? [])];
  if (issues.length > 0) refuse("invalid", issues);
  return b as CreateProductBody;
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

const skuTaken = (sku: string): WriteIssue => writeIssue("values.sku", "ALREADY_EXISTS", "sku", sku);

// 409 when the SKU or the value of a uniqueValue attribute is already held by a product of the organization.
// `lock` (inside the creation's transaction): each unique value is first locked for the rest of the transaction
// (an advisory lock on its hash), so two creations racing for one value are checked one after the other: the second
// sees the first's committed row. The SKU needs no lock: the products (org_id, identifier) index refuses a double.
async function checkUnique(
  db: Queryable,
  orgId: string,
  identifier: string,
  rows: ValueRow[],
  lock = false,
): Promise<void> {
  const [taken] = await db.query("select 1 from products where org_id = $1 and identifier = $2", [
    orgId,
    identifier,
  ]);
  if (taken) refuse("conflict", [skuTaken(identifier)]);
  const unique = rows.filter((r) => r.attribute.unique_value && r.attribute.code !== "sku");
  // Locked in one order, so that two creations holding values in common cannot wait for each other.
  const locks = [
    ...new Set(unique.map((r) => `unique:${orgId}:${r.attribute.id}:${JSON.stringify(r.value)}`)),
  ];
  if (lock && locks.length > 0)
    await db.query(
      "select pg_advisory_xact_lock(hashtext(k)) from (select k from unnest($1::text[]) k order by k) s",
      [locks.sort()],
    );
  const issues: WriteIssue[] = [];
  for (const r of unique) {
    const [hit] = await db.query(
      "select 1 from product_values where org_id = $1 and attribute_id = $2 and value = $3::jsonb limit 1",
      [orgId, r.attribute.id, JSON.stringify(r.value)],
    );
    if (hit)
      issues.push(
        writeIssue(
          `values.${r.attribute.code}${r.channelId ? `.${r.channelId}` : ""}`,
          "ALREADY_EXISTS",
          "value",
          r.attribute.code,
        ),
      );
  }
  if (issues.length > 0) refuse("conflict", issues);
}

// The option codes that are not options of their attribute (attribute_options), each refused with the first
// OPTIONS_QUOTED codes its attribute has and how many: one statement for every reference of the body.
async function unknownOptions(
  db: Queryable,
  orgId: string,
  refs: References["options"],
): Promise<WriteIssue[]> {
  if (refs.length === 0) return [];
  const rows = await db.query<{ attribute_id: string; unknown: string[]; valid: string[]; total: number }>(
    `select u.attribute_id, u.unknown,
            array(select o.code from attribute_options o where o.org_id = $1 and o.attribute_id = u.attribute_id
                   order by o.position, o.code limit $4) as valid,
            (select count(*)::int from attribute_options o
              where o.org_id = $1 and o.attribute_id = u.attribute_id) as total
       from (select r.attribute_id, array_agg(distinct r.code) as unknown
               from unnest($2::text[], $3::text[]) as r(attribute_id, code)
              where not exists (select 1 from attribute_options o
                                 where o.org_id = $1 and o.attribute_id = r.attribute_id and o.code = r.code)
              group by r.attribute_id) u`,
    [orgId, refs.map((r) => r.attribute.id), refs.map((r) => r.code), OPTIONS_QUOTED],
  );
  const byAttribute = new Map(rows.map((r) => [r.attribute_id, { ...r, unknown: new Set(r.unknown) }]));
  return refs.flatMap((r) => {
    const a = byAttribute.get(r.attribute.id);
    return a?.unknown.has(r.code)
      ? [writeIssue(r.field, "UNKNOWN_OPTION", "option", r.code, r.attribute.code, a.valid, a.total)]
      : [];
  });
}

// The media ids that are not media of the organization.
async function unknownMedia(db: Queryable, orgId: string, refs: References["media"]): Promise<WriteIssue[]> {
  if (refs.length === 0) return [];
  const known = new Set(
    (
      await db.query<{ id: string }>("select id from media where org_id = $1 and id = any($2::text[])", [
        orgId,
        refs.map((r) => r.id),
      ])
    ).map((m) => m.id),
  );
  return refs.filter((r) => !known.has(r.id)).map((r) => writeIssue(r.field, "UNKNOWN_MEDIA", "media", r.id));
}
