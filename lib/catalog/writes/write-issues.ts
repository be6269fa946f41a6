// The French text of every detail a refused write answers (`details: [{ field, code, message }]`), one table keyed
// by the detail's stable code: the validator (lib/catalog/writes/create-product.ts), the API's body and Idempotency-Key
// checks, the OpenAPI examples and the creating-products guide all read their messages here, so none is copied.
import type { AttributeType } from "@/db/schema";
import { CREATE_ID_MAX, CREATE_TOP_LEVEL } from "./create-product-schema";
import type { WriteIssue } from "@/lib/catalog/catalog-errors";

// What a value of each attribute type is, in French: "Valeur invalide pour « x » : <this> attendu."
const EXPECTED: Record<AttributeType, string> = {
  TEXT: "une chaîne de caractères",
  TEXTAREA: "une chaîne de caractères",
  NUMBER: "un nombre",
  PRICE: "un objet code de devise ISO 4217 → montant",
  BOOLEAN: "un booléen (true ou false)",
  DATE: "une date AAAA-MM-JJ",
  SELECT: "un code d'option",
  MULTI_SELECT: "une liste de codes d'option distincts",
  MEDIA: "un identifiant de média ou une liste d'identifiants",
};

// Longest name or value quoted back in a detail (a field, a code, an id): an answer never echoes a long input.
export const QUOTE_MAX = 100;
const q = (s: string) => s.slice(0, QUOTE_MAX);

// Most option codes an unknown option's detail lists (the first ones, in the options' order), of how many it has.
export const OPTIONS_QUOTED = 20;

// Each detail code, with a template per situation it names (the arguments are what the message quotes).
export const WRITE_ISSUES = {
  // Read by lib/public-api as it reads the body.
  UNSUPPORTED_MEDIA_TYPE: {
    contentType: (got: string) =>
      `Type de contenu « ${got.slice(0, 60) || "absent"} » non pris en charge : application/json attendu.`,
  },
  TOO_LARGE: { body: (bytes: number) => `Le corps dépasse ${bytes} octets.` },
  INVALID_JSON: { body: () => "Le corps n'est pas un JSON valide." },
  TOO_DEEP: {
    value: (levels: number) => `Valeur trop imbriquée : ${levels} niveaux d'objets et de tableaux au plus.`,
  },
  // The Idempotency-Key header (lib/public-api/idempotency.ts).
  INVALID_IDEMPOTENCY_KEY: {
    header: (max: number) =>
      `Clé d'idempotence invalide : de 1 à ${max} caractères ASCII visibles attendus (un UUID, par exemple).`,
  },
  KEY_REUSED: {
    header: (hours: number) =>
      `Cette clé a été utilisée avec un autre corps de requête dans les dernières ${hours} heures.`,
  },
  KEY_IN_USE: { header: () => "La première requête avec cette clé n'est pas terminée." },
  // The body's shape and each value's (createProductBodySchema and the attribute's value schema).
  INVALID_TEXT: { text: () => "Texte invalide : caractère NUL ou demi-paire UTF-16 isolée." },
  FORBIDDEN_FIELD: {
    organizationId: () => "Champ « organizationId » interdit : l'organisation est celle de la clé API.",
  },
  UNKNOWN_FIELD: {
    field: (name: string) =>
      `Champ « ${q(name)} » inconnu. Champs acceptés : ${CREATE_TOP_LEVEL.join(", ")}.`,
  },
  REQUIRED: {
    field: (name: string) => `Champ « ${name} » obligatoire.`,
    attribute: (code: string) => `Attribut « ${code} » obligatoire pour cette famille.`,
    sku: () => "Attribut « sku » obligatoire : il donne l'identifiant du produit.",
  },
  INVALID_TYPE: {
    body: () => "Le corps doit être un objet JSON.",
    id: (name: string) =>
      `Champ « ${name} » invalide : un identifiant (chaîne de 1 à ${CREATE_ID_MAX} caractères) attendu.`,
    values: () => "Champ « values » invalide : un objet code d'attribut → valeur attendu.",
    value: (code: string, type: string) =>
      `Valeur invalide pour « ${code} » : ${EXPECTED[type as AttributeType] ?? "un type connu"} attendu.`,
    amount: () => "Montant invalide : un nombre positif ou nul attendu.",
  },
  INVALID_LENGTH: {
    text: (code: string, max: number) =>
      `Valeur invalide pour « ${code} » : de 1 à ${max} caractères attendus.`,
  },
  UNKNOWN_CURRENCY: { currency: (code: string) => `Devise « ${code.slice(0, 16)} » inconnue (ISO 4217).` },
  INVALID_PRECISION: {
    amount: (currency: string, digits: number) =>
      `Montant invalide : au plus ${digits} décimale(s) pour ${currency}.`,
  },
  // The checks against the organization's catalog (prepareProduct).
  UNKNOWN_ATTRIBUTE: { attribute: (code: string) => `Attribut « ${q(code)} » inconnu dans l'organisation.` },
  UNKNOWN_CHANNEL: { channel: (id: string) => `Canal « ${q(id)} » inconnu dans l'organisation.` },
  UNKNOWN_OPTION: {
    option: (code: string, attribute: string, options: readonly string[], total: number) =>
      total === 0
        ? `Option « ${q(code)} » inconnue : l'attribut « ${attribute} » n'a aucune option.`
        : `Option « ${q(code)} » inconnue pour l'attribut « ${attribute} ». Options valides : ${options
            .slice(0, OPTIONS_QUOTED)
            .map(q)
            .join(", ")}${
            total > Math.min(options.length, OPTIONS_QUOTED)
              ? `, … (${Math.min(options.length, OPTIONS_QUOTED)} premières sur ${total})`
              : ""
          }.`,
  },
  UNKNOWN_MEDIA: { media: (id: string) => `Média « ${q(id)} » introuvable dans l'organisation.` },
  NOT_FOUND: {
    family: () => "Famille introuvable dans l'organisation de la clé API.",
    category: () => "Catégorie introuvable dans l'organisation de la clé API.",
  },
  NOT_IN_FAMILY: { attribute: (code: string) => `L'attribut « ${code} » n'appartient pas à la famille.` },
  ALREADY_EXISTS: {
    sku: (sku: string) => `Le SKU « ${q(sku)} » est déjà utilisé dans l'organisation.`,
    value: (code: string) => `La valeur de « ${code} » est déjà utilisée dans l'organisation.`,
  },
} as const satisfies Record<string, Record<string, (...args: never[]) => string>>;

type Issues = typeof WRITE_ISSUES;
// A stable code of a write's detail.
export type WriteIssueCode = keyof Issues;
type Args<C extends WriteIssueCode, S extends keyof Issues[C]> = Issues[C][S] extends (
  ...args: infer A
) => string
  ? A
  : never;

// One detail: the field it names, its code and the message of its situation (`writeIssue("values.x",
// "UNKNOWN_ATTRIBUTE", "attribute", "x")`).
export function writeIssue<C extends WriteIssueCode, S extends keyof Issues[C]>(
  field: string,
  code: C,
  situation: S,
  ...args: Args<C, S>
): WriteIssue {
  const template = WRITE_ISSUES[code][situation] as (...a: Args<C, S>) => string;
  return { field, code, message: template(...args) };
}
