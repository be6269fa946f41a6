import "server-only";
import type { Database, Queryable } from "@/db/client";
import { ID_PREFIX, isoSql, newId } from "@/db/schema";
import { CatalogWriteError, type WriteIssue, type WriteRefusal } from "./errors";
import type { CreatedProduct, ProductDraft } from "./schemas";

// Creation of a product from a write request: { familyId, categoryId, values } checked against the organization's
// attributes (prepareProduct), then the product and its values inserted in one transaction (insertProduct; the
// products' version bumps by trigger). A dry run is the first step and the uniqueness checks, without the insert.

// A request that passed every check of prepareProduct: what insertProduct writes.
export interface PreparedProduct {
  familyId: string;
  categoryId: string;
  identifier: string;
  label: string;
  values: Record<string, unknown>;
  rows: ValueRow[];
}

// Longest TEXT and TEXTAREA values, in characters.
export const TEXT_MAX = 255;
export const TEXTAREA_MAX = 10_000;
const ID_MAX = 128;
const TOP_LEVEL = ["familyId", "categoryId", "values"];

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

// Minor-unit digits of each ISO 4217 currency the runtime knows (EUR 2, JPY 0, KWD 3…).
let currencyDigits: Map<string, number> | undefined;
function currencies(): Map<string, number> {
  if (!currencyDigits) {
    currencyDigits = new Map();
    for (const c of Intl.supportedValuesOf("currency")) {
      const digits = new Intl.NumberFormat("en", { style: "currency", currency: c }).resolvedOptions()
        .maximumFractionDigits;
      currencyDigits.set(c, digits ?? 2);
    }
  }
  return currencyDigits;
}

const hasAtMostDecimals = (n: number, digits: number): boolean => Number(n.toFixed(digits)) === n;

function isDate(v: unknown): boolean {
  if (typeof v !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(v)) return false;
  const d = new Date(`${v}T00:00:00.000Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
}

// Checks one (unscoped) value against its attribute's type; pushes what is wrong. Option and media references are
// collected for a check against the database.
function checkValue(
  a: AttributeRow,
  v: unknown,
  field: string,
  issues: WriteIssue[],
  refs: {
    options: { attribute: AttributeRow; code: string; field: string }[];
    media: { id: string; field: string }[];
  },
): void {
  const wrong = (expected: string): void => {
    issues.push({
      field,
      code: "INVALID_TYPE",
      message: `Valeur invalide pour « ${a.code} » : ${expected} attendu.`,
    });
  };
  switch (a.type) {
    case "TEXT":
    case "TEXTAREA": {
      const max = a.type === "TEXT" ? TEXT_MAX : TEXTAREA_MAX;
      if (typeof v !== "string") return wrong("une chaîne de caractères");
      if (v.trim() === "" || v.length > max) {
        issues.push({
          field,
          code: "INVALID_LENGTH",
          message: `Valeur invalide pour « ${a.code} » : de 1 à ${max} caractères attendus.`,
        });
      }
      return;
    }
    case "NUMBER":
      if (typeof v !== "number" || !Number.isFinite(v)) wrong("un nombre");
      return;
    case "BOOLEAN":
      if (typeof v !== "boolean") wrong("un booléen (true ou false)");
      return;
    case "DATE":
      if (!isDate(v)) wrong("une date AAAA-MM-JJ");
      return;
    case "PRICE": {
      if (!isPlainObject(v) || Object.keys(v).length === 0)
        return wrong("un objet code de devise ISO 4217 → montant");
      for (const [cur, amount] of Object.entries(v)) {
        const digits = currencies().get(cur);
        const f = `${field}.${cur}`;
        if (digits === undefined)
          issues.push({
            field: f,
            code: "UNKNOWN_CURRENCY",
            message: `Devise « ${cur.slice(0, 16)} » inconnue (ISO 4217).`,
          });
        else if (typeof amount !== "number" || !Number.isFinite(amount) || amount < 0)
          issues.push({
            field: f,
            code: "INVALID_TYPE",
            message: `Montant invalide : un nombre positif ou nul attendu.`,
          });
        else if (!hasAtMostDecimals(amount, digits))
          issues.push({
            field: f,
            code: "INVALID_PRECISION",
            message: `Montant invalide : au plus ${digits} décimale(s) pour ${cur}.`,
          });
      }
      return;
    }
    case "SELECT":
      if (typeof v !== "string" || v === "") return wrong("un code d'option");
      refs.options.push({ attribute: a, code: v, field });
      return;
    case "MULTI_SELECT":
      if (
        !Array.isArray(v) ||
        v.some((x) => typeof x !== "string" || x === "") ||
        new Set(v).size !== v.length
      )
        return wrong("une liste de codes d'option distincts");
      (v as string[]).forEach((code, i) => refs.options.push({ attribute: a, code, field: `${field}.${i}` }));
      return;
    case "MEDIA": {
      const ids = typeof v === "string" ? [v] : v;
      if (!Array.isArray(ids) || ids.length === 0 || ids.some((x) => typeof x !== "string" || x === ""))
        return wrong("un identifiant de média ou une liste d'identifiants");
      (ids as string[]).forEach((id, i) =>
        refs.media.push({ id, field: typeof v === "string" ? field : `${field}.${i}` }),
      );
      return;
    }
    default:
      wrong("un type connu");
  }
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
        issues.push({
          field: pathOf(place).replace(UNSTORABLE, "?").slice(0, 100) || "body",
          code: "INVALID_TEXT",
          message: "Texte invalide : caractère NUL ou demi-paire UTF-16 isolée.",
        });
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

// Checks the request's shape: a JSON object with familyId, categoryId and values, nothing else.
function checkShape(body: unknown): {
  familyId: string;
  categoryId: string;
  values: Record<string, unknown>;
} {
  if (!isPlainObject(body))
    refuse("invalid", [
      { field: "body", code: "INVALID_TYPE", message: "Le corps doit être un objet JSON." },
    ]);
  const b = body as Record<string, unknown>;
  const unstorable = unstorableText(b);
  if (unstorable.length > 0) refuse("invalid", unstorable);
  const issues: WriteIssue[] = [];
  for (const k of Object.keys(b)) {
    if (k === "organizationId")
      issues.push({
        field: k,
        code: "FORBIDDEN_FIELD",
        message: "Champ « organizationId » interdit : l'organisation est celle de la clé API.",
      });
    else if (!TOP_LEVEL.includes(k))
      issues.push({
        field: k.slice(0, 100),
        code: "UNKNOWN_FIELD",
        message: `Champ « ${k.slice(0, 100)} » inconnu. Champs acceptés : ${TOP_LEVEL.join(", ")}.`,
      });
  }
  for (const k of ["familyId", "categoryId"] as const) {
    const v = b[k];
    if (v === undefined) issues.push({ field: k, code: "REQUIRED", message: `Champ « ${k} » obligatoire.` });
    else if (typeof v !== "string" || v === "" || v.length > ID_MAX)
      issues.push({
        field: k,
        code: "INVALID_TYPE",
        message: `Champ « ${k} » invalide : un identifiant (chaîne de 1 à ${ID_MAX} caractères) attendu.`,
      });
  }
  if (b.values === undefined)
    issues.push({ field: "values", code: "REQUIRED", message: "Champ « values » obligatoire." });
  else if (!isPlainObject(b.values))
    issues.push({
      field: "values",
      code: "INVALID_TYPE",
      message: "Champ « values » invalide : un objet code d'attribut → valeur attendu.",
    });
  if (issues.length > 0) refuse("invalid", issues);
  return {
    familyId: b.familyId as string,
    categoryId: b.categoryId as string,
    values: b.values as Record<string, unknown>,
  };
}

// Validates a creation request of one organization against its catalog (shape, value types, references, family
// rules), reading only. Throws CatalogWriteError for every refusal.
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
  const refs = { options: [], media: [] } as Parameters<typeof checkValue>[4];
  for (const code of codes) {
    const a = byCode.get(code);
    const field = `values.${code.slice(0, 100)}`;
    if (!a) {
      issues.push({
        field,
        code: "UNKNOWN_ATTRIBUTE",
        message: `Attribut « ${code.slice(0, 100)} » inconnu dans l'organisation.`,
      });
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
        const f = `${field}.${ch.slice(0, 100)}`;
        if (!channels.has(ch)) {
          issues.push({
            field: f,
            code: "UNKNOWN_CHANNEL",
            message: `Canal « ${ch.slice(0, 100)} » inconnu dans l'organisation.`,
          });
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
  if (!family)
    refuse("family_not_found", [
      {
        field: "familyId",
        code: "NOT_FOUND",
        message: "Famille introuvable dans l'organisation de la clé API.",
      },
    ]);
  const [category] = await db.query("select 1 from categories where org_id = $1 and id = $2", [
    orgId,
    req.categoryId,
  ]);
  if (!category)
    refuse("category_not_found", [
      {
        field: "categoryId",
        code: "NOT_FOUND",
        message: "Catégorie introuvable dans l'organisation de la clé API.",
      },
    ]);

  const expected = await db.query<{ attribute_id: string; code: string; is_required: boolean }>(
    `select fa.attribute_id, a.code, fa.is_required from family_attributes fa
       join attributes a on a.org_id = fa.org_id and a.id = fa.attribute_id
      where fa.org_id = $1 and fa.family_id = $2`,
    [orgId, req.familyId],
  );
  const inFamily = new Set(expected.map((e) => e.code));
  for (const code of codes)
    if (!inFamily.has(code))
      issues.push({
        field: `values.${code}`,
        code: "NOT_IN_FAMILY",
        message: `L'attribut « ${code} » n'appartient pas à la famille.`,
      });
  for (const e of expected)
    if (e.is_required && !(e.code in req.values))
      issues.push({
        field: `values.${e.code}`,
        code: "REQUIRED",
        message: `Attribut « ${e.code} » obligatoire pour cette famille.`,
      });
  const sku = req.values.sku;
  if (typeof sku !== "string" && !issues.some((i) => i.field === "values.sku"))
    issues.push({
      field: "values.sku",
      code: "REQUIRED",
      message: "Attribut « sku » obligatoire : il donne l'identifiant du produit.",
    });
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

const skuTaken = (sku: string): WriteIssue => ({
  field: "values.sku",
  code: "ALREADY_EXISTS",
  message: `Le SKU « ${sku.slice(0, 100)} » est déjà utilisé dans l'organisation.`,
});

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
      issues.push({
        field: `values.${r.attribute.code}${r.channelId ? `.${r.channelId}` : ""}`,
        code: "ALREADY_EXISTS",
        message: `La valeur de « ${r.attribute.code} » est déjà utilisée dans l'organisation.`,
      });
  }
  if (issues.length > 0) refuse("conflict", issues);
}

// The option codes not known for their attribute. The schema has no table of options: the known codes of an
// attribute are those its values in the organization already use.
async function unknownOptions(
  db: Queryable,
  orgId: string,
  refs: { attribute: AttributeRow; code: string; field: string }[],
): Promise<WriteIssue[]> {
  const issues: WriteIssue[] = [];
  for (const r of refs) {
    const [hit] = await db.query(
      `select 1 from product_values where org_id = $1 and attribute_id = $2
          and (value = to_jsonb($3::text) or value @> jsonb_build_array($3::text)) limit 1`,
      [orgId, r.attribute.id, r.code],
    );
    if (!hit)
      issues.push({
        field: r.field,
        code: "UNKNOWN_OPTION",
        message: `Option « ${r.code.slice(0, 100)} » inconnue pour l'attribut « ${r.attribute.code} ».`,
      });
  }
  return issues;
}

// The media ids that are not media of the organization.
async function unknownMedia(
  db: Queryable,
  orgId: string,
  refs: { id: string; field: string }[],
): Promise<WriteIssue[]> {
  if (refs.length === 0) return [];
  const known = new Set(
    (
      await db.query<{ id: string }>("select id from media where org_id = $1 and id = any($2::text[])", [
        orgId,
        refs.map((r) => r.id),
      ])
    ).map((m) => m.id),
  );
  return refs
    .filter((r) => !known.has(r.id))
    .map((r) => ({
      field: r.field,
      code: "UNKNOWN_MEDIA",
      message: `Média « ${r.id.slice(0, 100)} » introuvable dans l'organisation.`,
    }));
}
