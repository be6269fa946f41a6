import type { Executor } from "@/db/client";
import { ID_PREFIX, stableId, type IdPrefix } from "@/db/schema";
import { codeOf, optionsOf } from "./flavour";
import { insertColumns } from "./sql";
import { stamp } from "./stamps";
import type { Flavour } from "./vocabulary";

// What the product batches need of an organization's structure: its channels' and attributes' ids by code, its
// families (with the SKU prefix and the ranges of their products) and the product nouns (family index, leaf id).
export interface Structure {
  channels: Record<string, string>;
  attributes: Record<string, string>;
  families: { id: string; code: string; sku: string; price: [number, number]; weight: [number, number] }[];
  nouns: { text: string; gender: string; family: number; leaf: string }[];
}

// Channels, attributes, families, family attributes and the category trees of one organization.
export async function seedStructure(
  tx: Executor,
  orgId: string,
  slug: string,
  f: Flavour,
): Promise<Structure> {
  const id = (prefix: IdPrefix, key: string) => stableId(prefix, `${slug}:${key}`);

  const channels: Structure["channels"] = {};
  const ch = f.channels.map((c, i) => {
    channels[c.code] = id(ID_PREFIX.channel, `channel:${c.code}`);
    return {
      id: channels[c.code]!,
      code: c.code,
      label: c.label,
      at: stamp(i * 60_000, `${slug}:chn:${c.code}`),
    };
  });
  await insertColumns(tx, "channels", {
    id: ["text", ch.map((c) => c.id)],
    org_id: ["text", ch.map(() => orgId)],
    code: ["text", ch.map((c) => c.code)],
    label: ["text", ch.map((c) => c.label)],
    created_at: ["timestamptz", ch.map((c) => c.at)],
    updated_at: ["timestamptz", ch.map((c) => c.at)],
  });

  const attributes: Structure["attributes"] = {};
  const at = f.attributes.map((a, i) => {
    attributes[a.code] = id(ID_PREFIX.attribute, `attribute:${a.code}`);
    return { ...a, id: attributes[a.code]!, at: stamp(3_600_000 + i * 397_000, `${slug}:att:${a.code}`) };
  });
  await insertColumns(tx, "attributes", {
    id: ["text", at.map((a) => a.id)],
    org_id: ["text", at.map(() => orgId)],
    slug: ["text", at.map((a) => a.code.replace(/_/g, "-"))],
    code: ["text", at.map((a) => a.code)],
    label: ["text", at.map((a) => a.label)],
    type: ["text", at.map((a) => a.type)],
    unique_value: ["bool", at.map((a) => Boolean(a.unique))],
    is_scopable: ["bool", at.map((a) => Boolean(a.scopable))],
    created_at: ["timestamptz", at.map((a) => a.at)],
    updated_at: [
      "timestamptz",
      at.map((a, i) => (i % 3 === 0 ? stamp(40 * 86_400_000 + i * 7_777_000, a.code) : a.at)),
    ],
  });

  // The options of the SELECT and MULTI_SELECT attributes, dated like their attribute. An upsert: options a
  // database already has (migration 0012 labels them with their code) take the vocabulary's labels and order.
  const opts = Object.entries(optionsOf(f)).flatMap(([code, list]) => {
    const a = at.find((x) => x.code === code)!;
    return list.map((o, position) => ({ ...o, attribute: a.id, position, at: a.at }));
  });
  await tx.query(
    `insert into attribute_options (org_id, attribute_id, code, label, position, created_at, updated_at)
     select $1, t.attribute_id, t.code, t.label, t.position, t.at, t.at
       from unnest($2::text[], $3::text[], $4::text[], $5::int4[], $6::timestamptz[])
         as t(attribute_id, code, label, position, at)
     on conflict (attribute_id, code) do update set label = excluded.label, position = excluded.position`,
    [
      orgId,
      opts.map((o) => o.attribute),
      opts.map((o) => o.code),
      opts.map((o) => o.label),
      opts.map((o) => o.position),
      opts.map((o) => o.at),
    ],
  );

  const families = f.families.map((fam, i) => ({
    id: id(ID_PREFIX.family, `family:${fam.code}`),
    code: fam.code,
    sku: codeOf(fam.code, "").slice(0, 3).toUpperCase(),
    price: fam.price,
    weight: fam.weight,
    spec: fam,
    at: stamp(2 * 86_400_000 + i * 1_234_000, `${slug}:fam:${fam.code}`),
  }));
  await insertColumns(tx, "families", {
    id: ["text", families.map((x) => x.id)],
    org_id: ["text", families.map(() => orgId)],
    slug: ["text", families.map((x) => x.code.replace(/_/g, "-"))],
    code: ["text", families.map((x) => x.code)],
    label: ["text", families.map((x) => x.spec.label)],
    created_at: ["timestamptz", families.map((x) => x.at)],
    updated_at: [
      "timestamptz",
      families.map((x, i) => (i % 4 === 1 ? stamp(90 * 86_400_000 + i * 999_000, x.code) : x.at)),
    ],
  });

  const fa: { family: string; attribute: string; required: boolean; position: number }[] = [];
  for (const fam of families) {
    const codes: [string, boolean][] = [
      ...f.common,
      ...fam.spec.extra.map((c): [string, boolean] => [c, c === "size"]),
    ];
    codes.forEach(([code, required], position) =>
      fa.push({ family: fam.id, attribute: attributes[code]!, required, position }),
    );
  }
  await insertColumns(tx, "family_attributes", {
    org_id: ["text", fa.map(() => orgId)],
    family_id: ["text", fa.map((x) => x.family)],
    attribute_id: ["text", fa.map((x) => x.attribute)],
    is_required: ["bool", fa.map((x) => x.required)],
    position: ["int4", fa.map((x) => x.position)],
  });

  // Category trees: the master tree (root → branches → leaves) and the secondary trees.
  const cats: {
    id: string;
    slug: string;
    label: string;
    parent: string | null;
    master: boolean;
    position: number;
  }[] = [];
  const addCat = (label: string, parent: (typeof cats)[number] | null, master: boolean, position: number) => {
    const catSlug = parent ? `${parent.slug}-${codeOf(label, "-")}` : codeOf(label, "-");
    const c = {
      id: id(ID_PREFIX.category, `category:${catSlug}`),
      slug: catSlug,
      label,
      parent: parent?.id ?? null,
      master,
      position,
    };
    cats.push(c);
    return c;
  };
  const nouns: Structure["nouns"] = [];
  const familyIndex = new Map(families.map((x, i) => [x.code, i + 1]));
  const root = addCat(f.masterRoot, null, true, 0);
  f.branches.forEach((b, bi) => {
    const branch = addCat(b.label, root, true, bi);
    b.leaves.forEach((l, li) => {
      const leaf = addCat(l.label, branch, true, li);
      for (const n of l.nouns)
        nouns.push({ text: n.text, gender: n.gender, family: familyIndex.get(n.family)!, leaf: leaf.id });
    });
  });
  f.secondary.forEach((t, ti) => {
    const top = addCat(t.label, null, false, ti + 1);
    t.children.forEach((c, ci) => addCat(c, top, false, ci));
  });
  await insertColumns(tx, "categories", {
    id: ["text", cats.map((c) => c.id)],
    org_id: ["text", cats.map(() => orgId)],
    slug: ["text", cats.map((c) => c.slug)],
    label: ["text", cats.map((c) => c.label)],
    parent_id: ["text", cats.map((c) => c.parent)],
    is_master: ["bool", cats.map((c) => c.master)],
    position: ["int4", cats.map((c) => c.position)],
    created_at: [
      "timestamptz",
      cats.map((c, i) => stamp(3 * 86_400_000 + i * 611_000, `${slug}:cat:${c.slug}`)),
    ],
    updated_at: [
      "timestamptz",
      cats.map((c, i) => stamp((3 + (i % 5) * 20) * 86_400_000 + i * 611_000, c.slug)),
    ],
  });

  return { channels, attributes, families, nouns };
}
